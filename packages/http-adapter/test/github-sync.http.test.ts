import { readFileSync } from "node:fs";
import { signGithubDelivery } from "@quire/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type GithubStandIn,
  startGithubStandIn,
} from "../../core/src/github-sync/testing/github-stand-in.js";
import { createTestSite, expectError, stoppingBody, type TestSite } from "./helpers.js";

// GitHub is unreachable from the test machines: the site talks to a local stand-in that speaks the
// documented subset of its REST API (core/src/github-sync/testing/github-stand-in.ts), and the
// deliveries are GitHub's documented push payload example (core/src/github-sync/testing/README.md),
// signed as GitHub signs them (HMAC-SHA256 of the raw body with the hook's secret).

const fixtures = new URL("../../core/src/github-sync/testing/", import.meta.url);
const pushExample = JSON.parse(readFileSync(new URL("push-event.json", fixtures), "utf8"));
const tagDeletedExample = readFileSync(new URL("push-tag-deleted.json", fixtures));
const owner = "octo-site";
const repo = "blog";
const token = "ghp_httpStandInToken";

let github: GithubStandIn;
let site: TestSite;

beforeAll(async () => {
  github = await startGithubStandIn();
});
afterAll(() => github.close());

beforeEach(() => {
  github.failWith = null;
  github.createRepo(owner, repo, { token, files: { "config.toml": "theme = 'mine'\n" } });
});

async function connect(target = site) {
  const answer = await target.call("PUT", "/api/github-sync", {
    owner,
    repo,
    token,
    webhookUrl: "https://blog.example/api/github-sync/webhook",
    apiBaseUrl: github.url,
    debounceSeconds: 3600,
  });
  expect(answer.status).toBe(200);
  return answer;
}

function secret(): string {
  return [...github.repo(owner, repo).hooks.values()].at(-1)?.secret as string;
}

let counter = 0;
/** POSTs a delivery as GitHub does: raw JSON bytes, event, delivery id and signature headers. */
async function deliver(
  event: string,
  body: string | Uint8Array,
  options: { signature?: string | null; delivery?: string; target?: TestSite; contentType?: string } = {},
) {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const signature =
    options.signature === undefined ? await signGithubDelivery(secret(), bytes) : options.signature;
  const headers: Record<string, string> = {
    authorization: "",
    "content-type": options.contentType ?? "application/json",
    "user-agent": "GitHub-Hookshot/044aadd",
    "x-github-event": event,
    "x-github-delivery": options.delivery ?? `d6f3c1a0-0000-11ee-8000-${String(++counter).padStart(12, "0")}`,
    "x-github-hook-id": "1",
  };
  if (signature !== null) headers["x-hub-signature-256"] = signature;
  return (options.target ?? site).send("POST", "/api/github-sync/webhook", bytes, headers);
}

function pushOf(push: { before: string; after: string }, modified: string[], message = "Edit on GitHub") {
  const commit = { ...pushExample.commits[0], id: push.after, message, added: [], removed: [], modified };
  return JSON.stringify({
    ...pushExample,
    ref: "refs/heads/main",
    before: push.before,
    after: push.after,
    commits: [commit],
    head_commit: commit,
    repository: { ...pushExample.repository, name: repo, full_name: `${owner}/${repo}` },
  });
}

describe("/api/github-sync (owner)", () => {
  beforeEach(async () => {
    site = await createTestSite();
  });

  it("setup, status and disconnect; anonymous callers get 401; the token is never answered", async () => {
    expectError(
      await site.call("GET", "/api/github-sync", undefined, { authorization: "" }),
      401,
      "UNAUTHORIZED",
    );
    expectError(
      await site.call("PUT", "/api/github-sync", { owner, repo, token }, { authorization: "" }),
      401,
      "UNAUTHORIZED",
    );
    expect((await site.call("GET", "/api/github-sync")).body).toEqual({ connected: false });
    const setup = await connect();
    expect(setup.body).toMatchObject({
      connected: true,
      owner,
      repo,
      branch: "main",
      hookId: expect.any(Number),
    });
    const status = await site.call("GET", "/api/github-sync");
    expect(status.body).toMatchObject({ connected: true, owner, repo });
    expect(JSON.stringify(status.body)).not.toContain(token);
    expect(JSON.stringify(status.body)).not.toContain(secret());
    const disconnected = await site.call("DELETE", "/api/github-sync");
    expect(disconnected.body).toEqual({ connected: false });
    expect(github.repo(owner, repo).hooks.size).toBe(0);
  });

  it("400 naming each invalid field; 400 for a token the code host refuses", async () => {
    const bad = await site.call("PUT", "/api/github-sync", {
      owner: "../etc",
      repo: "",
      token: "has space",
      webhookUrl: "ftp://x",
    });
    expectError(bad, 400, "VALIDATION_ERROR");
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual([
      "owner",
      "repo",
      "token",
      "webhookUrl",
    ]);
    const refused = await site.call("PUT", "/api/github-sync", {
      owner,
      repo,
      token: "ghp_wrong",
      webhookUrl: "https://blog.example/hook",
      apiBaseUrl: github.url,
    });
    expectError(refused, 400, "VALIDATION_ERROR");
    expect(refused.body.details.fieldErrors.token).toBeDefined();
  });

  it("POST /api/github-sync/push commits the export; 500 EXTERNAL_SERVICE_ERROR when the code host fails", async () => {
    expectError(await site.call("POST", "/api/github-sync/push"), 404, "NOT_FOUND");
    await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "Hello", slug: "hello" });
    await connect();
    const pushed = await site.call("POST", "/api/github-sync/push");
    expect(pushed.status).toBe(200);
    expect(pushed.body).toMatchObject({ commit: expect.any(String), removed: 0 });
    expect(github.files(owner, repo, "main").get("config.toml")).toBe("theme = 'mine'\n");
    expect(github.files(owner, repo, "main").has("content/threads/hello/_index.md")).toBe(true);
    await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "Again", slug: "again" });
    github.failWith = 500;
    expectError(await site.call("POST", "/api/github-sync/push"), 500, "EXTERNAL_SERVICE_ERROR");
  });
});

describe("POST /api/github-sync/webhook", () => {
  beforeEach(async () => {
    site = await createTestSite();
  });

  it("404 when no secret is set", async () => {
    expectError(await deliver("push", "{}", { signature: "sha256=00" }), 404, "NOT_FOUND");
  });

  it("401 for unsigned, forged, wrongly keyed and replayed-onto-another-body signatures", async () => {
    await connect();
    const body = pushOf({ before: "1".repeat(40), after: "2".repeat(40) }, []);
    expectError(await deliver("push", body, { signature: null }), 401, "UNAUTHORIZED");
    expectError(await deliver("push", body, { signature: "sha256=zz" }), 401, "UNAUTHORIZED");
    expectError(
      await deliver("push", body, { signature: await signGithubDelivery("wrong secret", body) }),
      401,
      "UNAUTHORIZED",
    );
    const signed = await signGithubDelivery(secret(), body);
    expectError(await deliver("push", `${body} `, { signature: signed }), 401, "UNAUTHORIZED");
    const rows = await site.engine.context.db.selectFrom("github_sync_deliveries").selectAll().execute();
    expect(rows).toEqual([]);
  });

  it("ping 200, an unknown event 202, the docs' tag-deletion push 202, a bad payload 400, a huge body 400", async () => {
    await connect();
    const ping = await deliver("ping", JSON.stringify({ zen: "Speak like a human.", hook_id: 1 }));
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({ status: "pong", event: "ping" });
    const star = await deliver("star", JSON.stringify({ action: "created" }));
    expect(star.status).toBe(202);
    expect(star.body).toMatchObject({ status: "ignored", event: "star" });
    const tag = await deliver("push", new Uint8Array(tagDeletedExample));
    expect(tag.status).toBe(202);
    expect(tag.body).toMatchObject({ status: "ignored" });
    expectError(await deliver("push", "not json"), 400, "VALIDATION_ERROR");
    expectError(await deliver("push", JSON.stringify({ ref: 5 })), 400, "VALIDATION_ERROR");
    expectError(await deliver("push", new Uint8Array(6 * 1024 * 1024)), 400, "VALIDATION_ERROR");
    expectError(await deliver("", "{}"), 400, "VALIDATION_ERROR");
    // A delivery whose connection drops midway: the client's doing, so 400, not 500.
    const dropped = await site.send("POST", "/api/github-sync/webhook", stoppingBody('{"ref":'), {
      authorization: "",
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": "d-1",
    });
    expectError(dropped, 400, "VALIDATION_ERROR");
    expect(dropped.body.error).toBe("The request body stopped before all of it arrived");
  });

  it("a signed push updates the post its page names; the same delivery again changes nothing", async () => {
    const created = await site.call("POST", "/api/posts", {
      format: "note",
      title: "Draft title",
      bodyMarkdown: "Written in Quire",
      slug: "story",
    });
    await connect();
    await site.call("POST", "/api/github-sync/push");
    const path = "content/threads/story/_index.md";
    const page = github.files(owner, repo, "main").get(path) as string;
    const push = github.pushCommit(
      owner,
      repo,
      "main",
      { [path]: page.replace("Written in Quire", "Edited on GitHub").replace('"rating":null', '"rating":5') },
      "Edit story",
    );
    const body = pushOf(push, [path]);
    const applied = await deliver("push", body, { delivery: "replayed-id" });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ status: "applied", updated: [created.body.id], rejected: [] });
    const post = await site.call("GET", `/api/posts/${created.body.id}?content=markdown`);
    expect(post.body).toMatchObject({ bodyMarkdown: "Edited on GitHub", rating: 5, title: "Draft title" });
    const replay = await deliver("push", body, { delivery: "replayed-id" });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ status: "duplicate" });
  });

  it("reads a form-encoded delivery (payload field), signed over the form bytes", async () => {
    await connect();
    const form = `payload=${encodeURIComponent(JSON.stringify({ zen: "Half measures are as bad as nothing at all." }))}`;
    const ping = await deliver("ping", form, { contentType: "application/x-www-form-urlencoded" });
    expect(ping.status).toBe(200);
  });

  it("still answers when the public API is switched off (the signature is its authentication)", async () => {
    site = await createTestSite({ engineConfig: { settings: { publicApiEnabled: false } } });
    await connect();
    expect((await deliver("ping", "{}")).status).toBe(200);
    expectError(
      await site.call("GET", "/api/public/threads", undefined, { authorization: "" }),
      404,
      "NOT_FOUND",
    );
  });

  it("never answers 500 for what the sender controls", async () => {
    await connect();
    const bodies: (string | Uint8Array)[] = [
      "",
      "null",
      "[]",
      '"text"',
      "{",
      new Uint8Array([0xff, 0xfe, 0x00]),
      JSON.stringify({ ref: "refs/heads/main", after: "a".repeat(40), commits: "nope" }),
      JSON.stringify({ ref: "refs/heads/main", after: "a".repeat(40), commits: [{ modified: [1, 2] }] }),
      JSON.stringify({
        ref: "refs/heads/main",
        after: "b".repeat(40),
        head_commit: null,
        commits: [{ modified: ["content/threads/../../x/_index.md", "content/threads/a/_index.md"] }],
      }),
    ];
    for (const body of bodies) {
      for (const event of ["push", "ping", "issues", "\u00e9v\u00e9nement"]) {
        const signed = await deliver(event, body);
        expect(signed.status, `${event} ${String(body)}`).toBeLessThan(500);
        const unsigned = await deliver(event, body, { signature: `sha256=${"a".repeat(64)}` });
        expect(unsigned.status).toBe(401);
      }
    }
  });
});
