import { publicCaller } from "@quire/core";
import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

const T = 1_700_000_000;
let site: TestSite;
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now: T + 10_000 } });
});

const anonymous = { authorization: "" };
type Extra = Record<string, unknown>;

async function post(body: Extra) {
  const res = await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "*text*", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; slug: string };
}
const root = (title: string, at: number, extra: Extra = {}) =>
  post({ title, publishedAt: at, createdAt: at, ...extra });
const reply = (to: string, at: number, extra: Extra = {}) =>
  post({ replyToId: to, publishedAt: at, createdAt: at, ...extra });
const ids = (body: { threads: { id: string }[] }) => body.threads.map((thread) => thread.id);

/** The same small site as the core tests: every order differs. */
async function seed() {
  const a = await root("a", T + 100, { rating: 5 });
  const b = await root("b", T + 200, { pinned: true });
  const c = await root("c", T + 300, { rating: 3, featured: true });
  const cReply = await reply(c.id, T + 400);
  const d = await root("d", T + 350);
  await reply(d.id, T + 500, { quietReply: true });
  const e = await root("e", T + 300, { rating: 5 });
  const f = await root("f", T + 250, { visibility: "latest_hidden" });
  const g = await root("g", T + 260, { visibility: "private" });
  const h = await post({ title: "h", status: "draft" });
  return { a, b, c, cReply, d, e, f, g, h };
}

describe("GET /api/public/threads", () => {
  it("lists the homepage without auth: public Threads, pinned on top, reading view", async () => {
    const { a, b, c, d, e } = await seed();
    const res = await site.call("GET", "/api/public/threads", undefined, anonymous);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([b.id, c.id, d.id, e.id, a.id]);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.threads[1]).toEqual({
      id: c.id,
      postCount: 2,
      lastActivityAt: T + 400,
      threadUpdatedAt: T + 400,
      root: expect.objectContaining({ id: c.id, permalink: "/c", status: "published", collections: [] }),
    });
    expect(res.body.threads[1].root).not.toHaveProperty("body");
    expect(res.body.threads[1].root).not.toHaveProperty("displayTitle");
  });

  it("answers exactly what the engine answers in-process", async () => {
    await seed();
    const query = { sort: "rating", visibility: "any", include: "fold", limit: "3" };
    const res = await site.call(
      "GET",
      `/api/public/threads?${new URLSearchParams(query)}`,
      undefined,
      anonymous,
    );
    // The same request as canonical values: the edge converts the text, core never sees it.
    const direct = await site.engine.publicThreads.list(
      { sort: "rating", visibility: "any", fold: true, limit: 3 },
      publicCaller,
    );
    expect(res.body).toEqual(JSON.parse(JSON.stringify(direct)));
  });

  it("reads every order and visibility from the query string", async () => {
    const { a, b, c, d, e, f } = await seed();
    const list = async (query: string) => {
      const res = await site.call("GET", `/api/public/threads?${query}`, undefined, anonymous);
      expect(res.status, query).toBe(200);
      return ids(res.body);
    };
    expect(await list("sort=published")).toEqual([d.id, e.id, c.id, b.id, a.id]);
    expect(await list("sort=updated")).toEqual([d.id, c.id, e.id, b.id, a.id]);
    expect(await list("sort=oldest")).toEqual([a.id, b.id, c.id, e.id, d.id]);
    expect(await list("sort=rating")).toEqual([e.id, a.id, c.id, d.id, b.id]);
    expect(await list("visibility=any&sort=published")).toEqual([d.id, e.id, c.id, f.id, b.id, a.id]);
    expect(await list("visibility=hidden")).toEqual([f.id]);
    expect(await list("visibility=featured")).toEqual([c.id]);
    expect(await list("format=link")).toEqual([]);
    expect(await list("replies=any")).toEqual([c.id, d.id]);
    expect(await list("replies=none&sort=oldest")).toEqual([a.id, b.id, e.id]);
    expect(await list("title=none")).toEqual([]);
    expect(await list("year=2023&sort=oldest")).toEqual([a.id, b.id, c.id, e.id, d.id]);
    expect(await list("year=2024")).toEqual([]);
    expect(await list("media=none&limit=1")).toEqual([b.id]);
    expect(await list("media=text")).toEqual([]);
    expect(await list("collection=unknown")).toEqual([]);
    expect(await list("status=draft&unknown=1")).toEqual([b.id, c.id, d.id, e.id, a.id]);
  });

  it("answers 400 in the error shape for values it cannot read", async () => {
    await seed();
    for (const query of [
      "visibility=all",
      "visibility=private",
      "visibility=featured&sort=activity",
      "visibility=featured&sort=rating",
      "sort=newest",
      "format=poem",
      "year=last",
      "year=1800",
      "media=photo",
      "title=maybe",
      "replies=2",
      "lang=%21%21",
      "limit=ten",
      "cursor=garbage!",
      "cursor=pst_01h2xcejqtf2nbrexx3vqjhp41",
      "cursor=med_01h2xcejqtf2nbrexx3vqjhp41",
      "content=html",
    ]) {
      const res = await site.call("GET", `/api/public/threads?${query}`, undefined, anonymous);
      expectError(res, 400, "VALIDATION_ERROR", query);
      expect(Array.isArray(res.body.details.formErrors), query).toBe(true);
      expect(Object.keys(res.body.details.fieldErrors).length, query).toBeGreaterThan(0);
    }
  });

  it("walks with nextCursor, clamps limit, and refuses a cursor of another order", async () => {
    const { a, b, c, d, e } = await seed();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const res = await site.call("GET", `/api/public/threads?${query}`, undefined, anonymous);
      expect(res.body.threads.length).toBeLessThanOrEqual(2);
      seen.push(...ids(res.body));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([b.id, c.id, d.id, e.id, a.id]);
    expect(
      ids((await site.call("GET", "/api/public/threads?limit=0", undefined, anonymous)).body),
    ).toHaveLength(1);
    expect(
      ids((await site.call("GET", "/api/public/threads?limit=500", undefined, anonymous)).body),
    ).toHaveLength(5);
    const first = await site.call("GET", "/api/public/threads?limit=1", undefined, anonymous);
    const other = await site.call(
      "GET",
      `/api/public/threads?sort=published&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      undefined,
      anonymous,
    );
    expect(other.status).toBe(400);
    expect(other.body.details.fieldErrors).toHaveProperty("cursor");
  });

  it("adds folds with include=fold, skips unknown include values, and returns markdown on request", async () => {
    const { c, cReply } = await seed();
    const plain = await site.call("GET", "/api/public/threads?include=everything", undefined, anonymous);
    expect(plain.body.threads.some((thread: object) => "fold" in thread)).toBe(false);
    const res = await site.call(
      "GET",
      "/api/public/threads?include=everything,fold&content=markdown",
      undefined,
      anonymous,
    );
    const thread = res.body.threads.find((t: { id: string }) => t.id === c.id);
    expect(thread.fold).toEqual({
      leading: [
        expect.objectContaining({ id: cReply.id, bodyMarkdown: "*text*", permalink: `/${cReply.slug}` }),
      ],
      hidden: 0,
      gap: null,
      trailing: [],
    });
    expect(thread.root).toMatchObject({ bodyMarkdown: "*text*" });
    expect(thread.root).not.toHaveProperty("bodyHtml");
    expect(res.body.threads.every((t: object) => "fold" in t)).toBe(true);
  });

  it("answers 404 to everyone when the public API is off", async () => {
    const closed = await createTestSite({ engineConfig: { settings: { publicApiEnabled: false } } });
    for (const path of ["/api/public/threads", "/api/public/threads/x", "/api/public/threads/x/posts"]) {
      const res = await closed.call("GET", path, undefined, anonymous);
      expectError(res, 404, "NOT_FOUND", path);
    }
  });
});

describe("GET /api/threads", () => {
  it("needs auth and lists every visibility in the editing view; drafts with status=draft", async () => {
    const { a, b, c, d, e, f, g, h } = await seed();
    const denied = await site.call("GET", "/api/threads", undefined, anonymous);
    expectError(denied, 401, "UNAUTHORIZED");
    const res = await site.handler(
      new Request("http://localhost/api/threads", { headers: { authorization: "Bearer dev-token" } }),
    );
    const body = await res.json();
    expect(ids(body)).toEqual([b.id, c.id, d.id, e.id, g.id, f.id, a.id]);
    expect(body.threads[0].root).toHaveProperty("body");
    expect(body.threads[0].root).not.toHaveProperty("permalink");
    expect(ids((await site.call("GET", "/api/threads?visibility=private")).body)).toEqual([g.id]);
    const drafts = (await site.call("GET", "/api/threads?status=draft")).body;
    expect(ids(drafts)).toEqual([h.id]);
    expect(drafts.threads[0]).toMatchObject({ postCount: 0, root: { status: "draft" } });
    expect((await site.call("GET", "/api/threads?visibility=all")).status).toBe(400);
    expect((await site.call("GET", "/api/threads?status=any")).status).toBe(400);
  });

  it("reads the year in the site's time zone", async () => {
    const zoned = await createTestSite({ engineConfig: { now: T, settings: { timeZone: "Asia/Tokyo" } } });
    // 2023-12-31T16:00Z is already 1 January 2024 in Tokyo.
    const res = await zoned.call("POST", "/api/posts", {
      format: "note",
      title: "t",
      publishedAt: Date.UTC(2023, 11, 31, 16) / 1000,
    });
    expect(ids((await zoned.call("GET", "/api/threads?year=2024")).body)).toEqual([res.body.id]);
    expect(ids((await zoned.call("GET", "/api/threads?year=2023")).body)).toEqual([]);
  });
});

describe("GET /api/threads/:id and /api/public/threads/:slug", () => {
  it("return the Thread of a root or a reply", async () => {
    const { c, cReply } = await seed();
    const owner = await site.call("GET", `/api/threads/${cReply.id}?include=fold`);
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({
      id: c.id,
      postCount: 2,
      root: { id: c.id },
      fold: { leading: [{ id: cReply.id }] },
    });
    const reader = await site.call("GET", `/api/public/threads/${cReply.slug}`, undefined, anonymous);
    expect(reader.body).toMatchObject({ id: c.id, root: { id: c.id, permalink: "/c" } });
    expect(reader.body).not.toHaveProperty("fold");
    const markdown = await site.call("GET", `/api/threads/${c.id}?content=markdown`);
    expect(markdown.body.root).toHaveProperty("bodyMarkdown", "*text*");
  });

  it("public: 404 for drafts and private Threads; latest-hidden is readable; owner reads them all", async () => {
    const { f, g, h } = await seed();
    for (const slug of [g.slug, h.slug, "missing"]) {
      const res = await site.call("GET", `/api/public/threads/${slug}`, undefined, anonymous);
      expectError(res, 404, "NOT_FOUND", slug);
    }
    expect(
      (await site.call("GET", `/api/public/threads/${f.slug}`, undefined, anonymous)).body,
    ).toMatchObject({
      id: f.id,
      root: { visibility: "latest_hidden" },
    });
    for (const post of [f, g, h])
      expect((await site.call("GET", `/api/threads/${post.id}`)).status).toBe(200);
    expect((await site.call("GET", "/api/threads/not-an-id")).status).toBe(400);
    expect((await site.call("GET", "/api/threads/pst_01h2xcejqtf2nbrexx3vqjhp41")).status).toBe(404);
  });
});

describe("GET /api/threads/:id/posts and /api/public/threads/:slug/posts", () => {
  it("list the root first, then replies in creation order, and load a fold's hidden replies", async () => {
    const thread = await root("long", T + 100);
    const replies = [];
    for (let i = 0; i < 8; i++) replies.push(await reply(thread.id, T + 200 + i));
    const draft = await post({ replyToId: thread.id, status: "draft" });
    const owner = await site.call("GET", `/api/threads/${thread.id}/posts`);
    expect(owner.body.posts.map((p: { id: string }) => p.id)).toEqual([
      thread.id,
      ...replies.map((r) => r.id),
    ]);
    expect(owner.body.nextCursor).toBeNull();
    const drafts = await site.call("GET", `/api/threads/${thread.id}/posts?status=draft`);
    expect(drafts.body.posts.map((p: { id: string }) => p.id)).toEqual([draft.id]);

    const folded = await site.call(
      "GET",
      `/api/public/threads/${thread.slug}?include=fold`,
      undefined,
      anonymous,
    );
    const { fold } = folded.body;
    expect(fold).toMatchObject({
      hidden: 3,
      gap: { id: replies[2]?.id, slug: replies[2]?.slug, permalink: `/${replies[2]?.slug}` },
    });
    const hidden = await site.call(
      "GET",
      `/api/public/threads/${thread.slug}/posts?cursor=${encodeURIComponent(fold.gap.cursor)}&limit=${fold.hidden}`,
      undefined,
      anonymous,
    );
    expect(hidden.body.posts.map((p: { id: string }) => p.id)).toEqual(replies.slice(2, 5).map((r) => r.id));
    expect(hidden.body.posts[0]).toHaveProperty("permalink");
    expect(1 + fold.leading.length + fold.trailing.length + fold.hidden).toBe(folded.body.postCount);

    const page = await site.call("GET", `/api/threads/${thread.id}/posts?limit=4`);
    expect(page.body.posts).toHaveLength(4);
    const rest = await site.call(
      "GET",
      `/api/threads/${thread.id}/posts?cursor=${encodeURIComponent(page.body.nextCursor)}`,
    );
    expect(rest.body.posts.map((p: { id: string }) => p.id)).toEqual(replies.slice(3).map((r) => r.id));
    expect(rest.body.nextCursor).toBeNull();
    expect((await site.call("GET", `/api/threads/${thread.id}/posts?cursor=${thread.id}`)).status).toBe(400);
  });

  it("reach a draft reply published during a walk, at the end, and fold it as the newest", async () => {
    // The clock stands after every reply: a draft written before them is published now.
    site.clock.set(T + 1_000);
    const thread = await root("walked", T + 100);
    const draft = await post({ replyToId: thread.id, status: "draft", createdAt: T + 150 });
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(await reply(thread.id, T + 200 + i));
    for (const base of [`/api/threads/${thread.id}`, `/api/public/threads/${thread.slug}`]) {
      const as = base.startsWith("/api/public") ? anonymous : {};
      const first = await site.call("GET", `${base}/posts?limit=2`, undefined, as);
      expect(first.body.posts.map((p: { id: string }) => p.id)).toEqual([thread.id, replies[0]?.id]);
      if (base.startsWith("/api/threads")) {
        const published = await site.call("PUT", `/api/posts/${draft.id}`, { status: "published" });
        expect(published.body.createdAt).toBe(T + 1_000);
      }
      const walked = [...first.body.posts];
      for (let cursor = first.body.nextCursor; cursor; ) {
        const page = await site.call("GET", `${base}/posts?limit=2&cursor=${cursor}`, undefined, as);
        walked.push(...page.body.posts);
        cursor = page.body.nextCursor;
      }
      // Before, it kept its draft's createdAt, sorted before the cursor, and was never reached.
      expect(
        walked.map((p: { id: string }) => p.id),
        base,
      ).toEqual([thread.id, ...replies.map((r) => r.id), draft.id]);
    }
    const folded = await site.call(
      "GET",
      `/api/public/threads/${thread.slug}?include=fold`,
      undefined,
      anonymous,
    );
    expect(folded.body.fold.trailing.at(-1).id).toBe(draft.id);
    // An edit of a published reply, or publishing it again later, moves nothing but what it sets.
    site.clock.set(T + 2_000);
    await site.call("PUT", `/api/posts/${draft.id}`, { bodyMarkdown: "edited" });
    expect((await site.call("GET", `/api/posts/${draft.id}`)).body.createdAt).toBe(T + 1_000);
  });
});
