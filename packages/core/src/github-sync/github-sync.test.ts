import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { codeOf, openTestEngine } from "../../test/support.js";
import { publicCaller } from "../caller.js";
import type { Engine } from "../engine.js";
import { isAcceptedOnly } from "./accepted.js";
import { signBody } from "./signature.js";
import { type GithubStandIn, startGithubStandIn } from "./testing/github-stand-in.js";

// The code host is unreachable from the test machines: every GitHub call goes to a local stand-in
// that speaks the documented subset of its REST API (testing/github-stand-in.ts), and deliveries
// are built from the push example of GitHub's webhook documentation (testing/README.md).

const NOW = 1_700_000_000;
const owner = "quire-test";
const repoName = "site";
const token = "ghp_standInToken";
const pushExample = JSON.parse(readFileSync(new URL("./testing/push-event.json", import.meta.url), "utf8"));
const tagDeletedExample = readFileSync(new URL("./testing/push-tag-deleted.json", import.meta.url));

let github: GithubStandIn;
let engine: Engine;

beforeAll(async () => {
  github = await startGithubStandIn();
});
afterAll(() => github.close());

beforeEach(async () => {
  ({ engine } = await openTestEngine({ now: NOW }));
  github.createRepo(owner, repoName, {
    token,
    files: { "README.md": "# My site\n", "layouts/index.html": "<h1>My theme</h1>\n" },
  });
  github.failWith = null;
});

async function connect(debounceSeconds = 3600) {
  return engine.githubSync.setup({
    owner,
    repo: repoName,
    token,
    webhookUrl: "https://blog.example/api/github-sync/webhook",
    apiBaseUrl: github.url,
    debounceSeconds,
  });
}

/** The secret GitHub holds for the site's hook: what it signs deliveries with. */
function hookSecret(): string {
  const hooks = [...github.repo(owner, repoName).hooks.values()];
  return hooks[hooks.length - 1]?.secret as string;
}

let deliveries = 0;
async function deliver(
  event: string,
  payload: unknown,
  options: { delivery?: string; secret?: string; signature?: string } = {},
) {
  const body =
    typeof payload === "string" || payload instanceof Uint8Array ? payload : JSON.stringify(payload);
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const signature = options.signature ?? (await signBody(options.secret ?? hookSecret(), bytes));
  return engine.githubSync.webhook(
    {
      body: bytes,
      headers: {
        "x-github-event": event,
        "x-github-delivery":
          options.delivery ?? `72d3162e-cc78-11e3-81ab-${String(++deliveries).padStart(12, "0")}`,
        "x-hub-signature-256": signature,
        "content-type": "application/json",
      },
    },
    publicCaller,
  );
}

/** A push delivery for a commit of the stand-in repository, in the documented payload's shape. */
function pushPayload(push: { before: string; after: string }, modified: string[], message = "Edit a post") {
  const commit = { ...pushExample.commits[0], id: push.after, message, added: [], removed: [], modified };
  return {
    ...pushExample,
    before: push.before,
    after: push.after,
    commits: [commit],
    head_commit: commit,
    repository: { ...pushExample.repository, name: repoName, full_name: `${owner}/${repoName}` },
  };
}

async function deliveryRows() {
  return engine.context.db.selectFrom("github_sync_deliveries").selectAll().execute();
}

describe("githubSync.setup, status, disconnect", () => {
  it("registers a push hook with a random secret and never shows the token or the secret", async () => {
    const status = await connect(10);
    const hooks = [...github.repo(owner, repoName).hooks.values()];
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({
      url: "https://blog.example/api/github-sync/webhook",
      events: ["push"],
      contentType: "json",
    });
    expect(hooks[0]?.secret.length).toBeGreaterThanOrEqual(32);
    expect(status).toMatchObject({
      connected: true,
      owner,
      repo: repoName,
      branch: "main",
      debounceSeconds: 10,
    });
    const shown = JSON.stringify(await engine.githubSync.status({}));
    expect(shown).not.toContain(token);
    expect(shown).not.toContain(hooks[0]?.secret);
  });

  it("answers 400 naming the token or the repository the code host refuses, and stores nothing", async () => {
    const base = { owner, repo: repoName, webhookUrl: "https://blog.example/hook", apiBaseUrl: github.url };
    expect(await codeOf(engine.githubSync.setup({ ...base, token: "wrong" }))).toBe("VALIDATION_ERROR");
    await expect(engine.githubSync.setup({ ...base, token: "wrong" })).rejects.toMatchObject({
      details: { fieldErrors: { token: expect.any(Array) } },
    });
    await expect(engine.githubSync.setup({ ...base, token, repo: "missing" })).rejects.toMatchObject({
      details: { fieldErrors: { repo: expect.any(Array) } },
    });
    await expect(engine.githubSync.setup({ ...base, token, branch: "nope" })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    github.failWith = 503;
    expect(await codeOf(engine.githubSync.setup({ ...base, token }))).toBe("EXTERNAL_SERVICE_ERROR");
    expect(await engine.githubSync.status({})).toEqual({ connected: false });
  });

  it("disconnect removes the hook and forgets the connection; a delivery then answers 404", async () => {
    await connect();
    const secret = hookSecret();
    expect(await engine.githubSync.disconnect({})).toEqual({ connected: false });
    expect(github.repo(owner, repoName).hooks.size).toBe(0);
    expect(await engine.githubSync.status({})).toEqual({ connected: false });
    expect(await codeOf(deliver("ping", { zen: "Keep it logically awesome." }, { secret }))).toBe(
      "NOT_FOUND",
    );
  });

  it("a second setup replaces the first and removes its hook", async () => {
    await connect();
    const first = hookSecret();
    await connect();
    const hooks = github.repo(owner, repoName).hooks;
    expect(hooks.size).toBe(1);
    expect(await codeOf(deliver("ping", {}, { secret: first }))).toBe("UNAUTHORIZED");
  });
});

describe("outbound sync", () => {
  it("commits the Hugo export on top of the branch, keeps the owner's files, and marks the commit", async () => {
    const post = await engine.posts.create({
      format: "note",
      title: "Hello",
      bodyMarkdown: "First post",
      slug: "hello",
    });
    await connect();
    const result = await engine.githubSync.push({});
    expect(result.commit).not.toBeNull();
    const files = github.files(owner, repoName, "main");
    expect(files.get("README.md")).toBe("# My site\n");
    expect(files.get("layouts/index.html")).toBe("<h1>My theme</h1>\n");
    const page = files.get("content/threads/hello/_index.md") ?? "";
    expect(page).toContain(`"id":"${post.id}"`);
    expect(page).toContain("First post");
    const log = github.log(owner, repoName, "main");
    expect(log[0]?.message).toContain("[quire-sync]");
    expect(log[0]?.sha).toBe(result.commit);
    expect(await engine.githubSync.status({})).toMatchObject({
      lastSyncedCommit: result.commit,
      lastError: null,
    });

    // Nothing changed: no commit.
    expect(await engine.githubSync.push({})).toEqual({ commit: null, changed: 0, removed: 0 });
    expect(github.log(owner, repoName, "main")).toHaveLength(2);
  });

  it("uploads only changed files and removes the pages of deleted posts, never the owner's files", async () => {
    const kept = await engine.posts.create({ format: "note", bodyMarkdown: "Kept", slug: "kept" });
    const gone = await engine.posts.create({ format: "note", bodyMarkdown: "Gone", slug: "gone" });
    await connect();
    await engine.githubSync.push({});
    github.requests.length = 0;
    await engine.posts.update({ id: kept.id, bodyMarkdown: "Kept, edited" });
    await engine.posts.delete({ id: gone.id });
    const result = await engine.githubSync.push({});
    expect(result).toMatchObject({ changed: 1, removed: 1 });
    expect(github.requests.filter((line) => line.endsWith("/git/blobs"))).toHaveLength(1);
    const files = github.files(owner, repoName, "main");
    expect(files.get("content/threads/kept/_index.md")).toContain("Kept, edited");
    expect(files.has("content/threads/gone/_index.md")).toBe(false);
    expect(files.has("README.md")).toBe(true);
  });

  it("rebuilds its commit on the new head when someone pushed in between (fast-forward only)", async () => {
    await engine.posts.create({ format: "note", bodyMarkdown: "Racing", slug: "racing" });
    await connect();
    github.beforeNextRefUpdate = () =>
      github.pushCommit(owner, repoName, "main", { "NOTES.md": "pushed meanwhile\n" }, "A push in between");
    const result = await engine.githubSync.push({});
    const log = github.log(owner, repoName, "main");
    expect(log.map((commit) => commit.message.split(" ")[0])).toEqual(["Quire:", "A", "Initial"]);
    expect(log[0]?.sha).toBe(result.commit);
    const files = github.files(owner, repoName, "main");
    expect(files.get("NOTES.md")).toBe("pushed meanwhile\n");
    expect(files.has("content/threads/racing/_index.md")).toBe(true);
  });

  it("leaves drafts out of the repository", async () => {
    await engine.posts.create({
      format: "note",
      bodyMarkdown: "Secret draft",
      slug: "draft",
      status: "draft",
    });
    await connect();
    await engine.githubSync.push({});
    expect(github.files(owner, repoName, "main").has("content/threads/draft/_index.md")).toBe(false);
  });

  it("a code host that fails is 500 EXTERNAL_SERVICE_ERROR, kept in the status", async () => {
    await engine.posts.create({ format: "note", bodyMarkdown: "x" });
    await connect();
    github.failWith = 502;
    expect(await codeOf(engine.githubSync.push({}))).toBe("EXTERNAL_SERVICE_ERROR");
    github.failWith = null;
    expect((await engine.githubSync.status({})).lastError).toMatch(/502/);
  });

  it("runs by itself after a burst of writes, as one commit holding all of them", async () => {
    await connect(1);
    const before = github.log(owner, repoName, "main").length;
    await Promise.all(
      ["one", "two", "three"].map((slug) =>
        engine.posts.create({ format: "note", bodyMarkdown: slug, slug }),
      ),
    );
    await expect
      .poll(() => github.log(owner, repoName, "main").length, { timeout: 20_000, interval: 100 })
      .toBe(before + 1);
    const files = github.files(owner, repoName, "main");
    for (const slug of ["one", "two", "three"])
      expect(files.has(`content/threads/${slug}/_index.md`)).toBe(true);
    expect(github.log(owner, repoName, "main")[0]?.message).toContain("[quire-sync]");
  });
});

describe("githubSync.webhook", () => {
  it("404 without a connection, before anything else is read", async () => {
    expect(await codeOf(deliver("push", pushExample, { secret: "whatever" }))).toBe("NOT_FOUND");
  });

  it("401 for a missing, malformed, forged or wrongly keyed signature; nothing is written", async () => {
    await connect();
    expect(await codeOf(deliver("ping", { zen: "x" }, { signature: "" }))).toBe("UNAUTHORIZED");
    expect(await codeOf(deliver("ping", { zen: "x" }, { signature: "sha1=abc" }))).toBe("UNAUTHORIZED");
    expect(await codeOf(deliver("ping", { zen: "x" }, { signature: `sha256=${"0".repeat(64)}` }))).toBe(
      "UNAUTHORIZED",
    );
    expect(await codeOf(deliver("push", pushExample, { secret: "not-the-secret" }))).toBe("UNAUTHORIZED");
    // A signature of another body (a replayed header on an altered payload).
    const signature = await signBody(hookSecret(), JSON.stringify(pushExample));
    expect(await codeOf(deliver("push", { ...pushExample, ref: "refs/heads/other" }, { signature }))).toBe(
      "UNAUTHORIZED",
    );
    expect(await deliveryRows()).toEqual([]);
  });

  it("ping answers pong; other events are accepted and ignored (202 over HTTP)", async () => {
    await connect();
    expect(await deliver("ping", { zen: "Design for failure.", hook_id: 1 })).toEqual({
      status: "pong",
      event: "ping",
    });
    const issues = await deliver("issues", { action: "opened" });
    expect(issues).toMatchObject({ status: "ignored", event: "issues" });
    expect(isAcceptedOnly(issues)).toBe(true);
    expect(await deliveryRows()).toEqual([]);
  });

  it("the documentation's push example (a tag deleted in another repository) is ignored", async () => {
    await connect();
    const answer = await deliver("push", new Uint8Array(tagDeletedExample));
    expect(answer).toMatchObject({ status: "ignored", event: "push" });
    expect(isAcceptedOnly(answer)).toBe(true);
    expect(await deliveryRows()).toEqual([]);
  });

  it("400 for a signed body that is not JSON or not a push payload, or a body over 5 MiB", async () => {
    await connect();
    expect(await codeOf(deliver("push", "{not json"))).toBe("VALIDATION_ERROR");
    expect(await codeOf(deliver("push", "[1,2]"))).toBe("VALIDATION_ERROR");
    expect(await codeOf(deliver("push", { ref: "refs/heads/main", after: "nope" }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(deliver("push", new Uint8Array(5 * 1024 * 1024 + 1)))).toBe("VALIDATION_ERROR");
    const declaredHuge = engine.githubSync.webhook(
      {
        body: new TextEncoder().encode("{}"),
        headers: {
          "content-length": String(1024 * 1024 * 1024),
          "x-hub-signature-256": await signBody(hookSecret(), "{}"),
          "x-github-event": "ping",
          "x-github-delivery": "huge",
        },
      },
      publicCaller,
    );
    await expect(declaredHuge).rejects.toMatchObject({
      details: { fieldErrors: { body: expect.any(Array) } },
    });
    const noEvent = engine.githubSync.webhook(
      {
        body: new TextEncoder().encode("{}"),
        headers: { "x-hub-signature-256": await signBody(hookSecret(), "{}") },
      },
      publicCaller,
    );
    expect(await codeOf(noEvent)).toBe("VALIDATION_ERROR");
    expect(await deliveryRows()).toEqual([]);
  });

  it("a push updates the posts its pages name: body, title, link and quote fields, rating", async () => {
    const note = await engine.posts.create({
      format: "note",
      title: "Old title",
      bodyMarkdown: "Old body",
      slug: "note",
    });
    const link = await engine.posts.create({
      format: "link",
      title: "A link",
      url: "https://old.example/",
      bodyMarkdown: "About it",
      slug: "link",
    });
    const quote = await engine.posts.create({
      format: "quote",
      quoteText: "Old quote",
      sourceName: "Someone",
      slug: "quote",
    });
    await connect();
    await engine.githubSync.push({});
    const files = github.files(owner, repoName, "main");
    const notePath = "content/threads/note/_index.md";
    const linkPath = "content/threads/link/_index.md";
    const quotePath = "content/threads/quote/_index.md";
    const edited = {
      [notePath]: (files.get(notePath) as string)
        .replace('title: "Old title"', "title: New title")
        .replace("Old body", "New body, written on GitHub")
        .replace('"rating":null', '"rating":4'),
      [linkPath]: (files.get(linkPath) as string).replace(
        '"url":"https://old.example/"',
        '"url":"https://new.example/"',
      ),
      [quotePath]: (files.get(quotePath) as string)
        .replace('"quoteText":"Old quote"', '"quoteText":"New quote"')
        .replace('"sourceName":"Someone"', '"sourceName":"Someone else"'),
      "README.md": "# Readme edited too\n",
    };
    const push = github.pushCommit(owner, repoName, "main", edited, "Edit posts");
    const answer = await deliver("push", pushPayload(push, Object.keys(edited)));
    expect(answer).toMatchObject({ status: "applied", rejected: [] });
    expect(new Set(answer.updated)).toEqual(new Set([note.id, link.id, quote.id]));
    expect(await engine.posts.get({ id: note.id, content: "markdown" })).toMatchObject({
      title: "New title",
      bodyMarkdown: "New body, written on GitHub",
      rating: 4,
    });
    expect(await engine.posts.get({ id: link.id })).toMatchObject({ url: "https://new.example/" });
    expect(await engine.posts.get({ id: quote.id })).toMatchObject({
      quoteText: "New quote",
      sourceName: "Someone else",
    });
  });

  it("a replayed delivery, or the same push under another delivery id, changes nothing", async () => {
    const post = await engine.posts.create({ format: "note", bodyMarkdown: "Before", slug: "p" });
    await connect();
    await engine.githubSync.push({});
    const path = "content/threads/p/_index.md";
    const edit = (github.files(owner, repoName, "main").get(path) as string).replace("Before", "After");
    const push = github.pushCommit(owner, repoName, "main", { [path]: edit }, "Edit");
    const payload = pushPayload(push, [path]);
    expect(await deliver("push", payload, { delivery: "d-1" })).toMatchObject({
      status: "applied",
      updated: [post.id],
    });
    await engine.posts.update({ id: post.id, bodyMarkdown: "Changed in Quire since" });
    expect(await deliver("push", payload, { delivery: "d-1" })).toMatchObject({ status: "duplicate" });
    expect(await deliver("push", payload, { delivery: "d-2" })).toMatchObject({ status: "duplicate" });
    expect(await engine.posts.get({ id: post.id, content: "markdown" })).toMatchObject({
      bodyMarkdown: "Changed in Quire since",
    });
  });

  it("of two identical deliveries arriving at once, one applies and the other is a duplicate", async () => {
    const post = await engine.posts.create({ format: "note", bodyMarkdown: "Once", slug: "once" });
    await connect();
    await engine.githubSync.push({});
    const path = "content/threads/once/_index.md";
    const text = (github.files(owner, repoName, "main").get(path) as string).replace(
      "\nOnce\n",
      "\nTwice?\n",
    );
    const push = github.pushCommit(owner, repoName, "main", { [path]: text }, "Edit");
    const payload = pushPayload(push, [path]);
    const answers = await Promise.all([
      deliver("push", payload, { delivery: "same" }),
      deliver("push", payload, { delivery: "same" }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual(["applied", "duplicate"]);
    expect(await deliveryRows()).toHaveLength(1);
    expect(await engine.posts.get({ id: post.id, content: "markdown" })).toMatchObject({
      bodyMarkdown: "Twice?",
    });
  });

  it("reads hand-edited front matter in plain YAML (unquoted text, an indented params block)", async () => {
    const post = await engine.posts.create({
      format: "note",
      title: "T",
      bodyMarkdown: "Body",
      slug: "yaml",
    });
    await connect();
    const path = "content/threads/yaml/_index.md";
    const page = [
      "---",
      "title: A title typed by hand  # a comment",
      "draft: false",
      "params:",
      `  id: ${post.id}`,
      "  rating: 2",
      "---",
      "Body typed by hand",
      "",
    ].join("\n");
    const push = github.pushCommit(owner, repoName, "main", { [path]: page }, "Hand edit");
    expect(await deliver("push", pushPayload(push, [path]))).toMatchObject({
      status: "applied",
      updated: [post.id],
    });
    expect(await engine.posts.get({ id: post.id, content: "markdown" })).toMatchObject({
      title: "A title typed by hand",
      rating: 2,
      bodyMarkdown: "Body typed by hand",
    });
    const broken = github.pushCommit(owner, repoName, "main", { [path]: "no front matter\n" }, "Break it");
    const answer = await deliver("push", pushPayload(broken, [path]));
    expect(answer.rejected).toEqual([{ path, reason: expect.stringMatching(/front matter/) }]);
  });

  it("reads a front matter key typed __proto__ as a key of its own, whose fields the page does not hold", async () => {
    const post = await engine.posts.create({
      format: "link",
      title: "Kept",
      url: "https://example.com/kept",
      bodyMarkdown: "Body",
      slug: "proto",
    });
    await connect();
    const path = "content/threads/proto/_index.md";
    // Assigned as properties, each `__proto__` map became its object's prototype, and its fields
    // (the title, the link, a rating) seemed to be the page's own.
    const page = [
      "---",
      '__proto__: {"title": "From a prototype"}',
      "params:",
      `  id: ${post.id}`,
      '  __proto__: {"url": "https://example.com/prototype", "rating": 5}',
      "---",
      "Body edited",
      "",
    ].join("\n");
    const push = github.pushCommit(owner, repoName, "main", { [path]: page }, "Odd keys");
    expect(await deliver("push", pushPayload(push, [path]))).toMatchObject({
      status: "applied",
      updated: [post.id],
    });
    const after = await engine.posts.get({ id: post.id, content: "markdown" });
    expect(after).toMatchObject({
      title: "Kept",
      url: "https://example.com/kept",
      bodyMarkdown: "Body edited",
    });
    expect(after.rating ?? null).toBeNull();
  });

  it("skips a push whose head commit is Quire's own, so the sync never loops", async () => {
    const post = await engine.posts.create({ format: "note", bodyMarkdown: "Mine", slug: "mine" });
    await connect();
    await engine.githubSync.push({});
    const path = "content/threads/mine/_index.md";
    const text = (github.files(owner, repoName, "main").get(path) as string).replace("Mine", "Theirs");
    const push = github.pushCommit(
      owner,
      repoName,
      "main",
      { [path]: text },
      "Quire: site export [quire-sync]",
    );
    expect(await deliver("push", pushPayload(push, [path], "Quire: site export [quire-sync]"))).toMatchObject(
      {
        status: "skipped",
      },
    );
    expect(await engine.posts.get({ id: post.id, content: "markdown" })).toMatchObject({
      bodyMarkdown: "Mine",
    });
  });

  it("never creates or deletes posts: unknown ids are rejected, removed pages ignored", async () => {
    const post = await engine.posts.create({ format: "note", bodyMarkdown: "Stays", slug: "stays" });
    await connect();
    await engine.githubSync.push({});
    const stays = "content/threads/stays/_index.md";
    const page = github.files(owner, repoName, "main").get(stays) as string;
    const newPath = "content/threads/new-one/_index.md";
    const push = github.pushCommit(
      owner,
      repoName,
      "main",
      {
        [stays]: null,
        [newPath]: page.replace(post.id, "pst_01unknownunknownunknown00").replace("Stays", "New"),
      },
      "Add and remove",
    );
    const payload = pushPayload(push, [newPath]);
    payload.commits[0].removed = [stays];
    payload.commits[0].added = [newPath];
    payload.commits[0].modified = [];
    const answer = await deliver("push", payload);
    expect(answer).toMatchObject({ status: "applied", updated: [] });
    expect(answer.rejected).toEqual([{ path: newPath, reason: expect.stringMatching(/never creates/) }]);
    expect((await engine.posts.list({})).posts).toHaveLength(1);
    expect(await engine.posts.get({ id: post.id, content: "markdown" })).toMatchObject({
      bodyMarkdown: "Stays",
    });
  });

  it("a page the post rules refuse is rejected with the reason; the rest of the push applies", async () => {
    const a = await engine.posts.create({ format: "note", bodyMarkdown: "A", slug: "a" });
    const b = await engine.posts.create({ format: "note", bodyMarkdown: "B", slug: "b" });
    await connect();
    await engine.githubSync.push({});
    const files = github.files(owner, repoName, "main");
    const pa = "content/threads/a/_index.md";
    const pb = "content/threads/b/_index.md";
    const push = github.pushCommit(
      owner,
      repoName,
      "main",
      {
        [pa]: (files.get(pa) as string).replace('"rating":null', '"rating":9'),
        [pb]: (files.get(pb) as string).replace("\nB\n", "\nB edited\n"),
      },
      "Edit",
    );
    const answer = await deliver("push", pushPayload(push, [pa, pb]));
    expect(answer.updated).toEqual([b.id]);
    expect(answer.rejected).toEqual([{ path: pa, reason: expect.stringMatching(/rating/) }]);
    expect(await engine.posts.get({ id: a.id, content: "markdown" })).toMatchObject({
      rating: null,
      bodyMarkdown: "A",
    });
  });

  it("a push the code host cannot serve is deferred (202) and may be delivered again", async () => {
    const post = await engine.posts.create({ format: "note", bodyMarkdown: "Before", slug: "d" });
    await connect();
    await engine.githubSync.push({});
    const path = "content/threads/d/_index.md";
    const text = (github.files(owner, repoName, "main").get(path) as string).replace("Before", "After");
    const push = github.pushCommit(owner, repoName, "main", { [path]: text }, "Edit");
    github.failWith = 503;
    const deferred = await deliver("push", pushPayload(push, [path]), { delivery: "again" });
    expect(deferred).toMatchObject({ status: "deferred" });
    expect(isAcceptedOnly(deferred)).toBe(true);
    github.failWith = null;
    expect(await deliver("push", pushPayload(push, [path]), { delivery: "again" })).toMatchObject({
      status: "applied",
      updated: [post.id],
    });
  });
});
