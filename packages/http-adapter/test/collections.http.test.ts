import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

const T = 1_700_000_000;
let site: TestSite;
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now: T + 10_000 } });
});

type Extra = Record<string, unknown>;
const unknownCollection = "col_01h2xcejqtf2nbrexx3vqjhp41";
const unknownPost = "pst_01h2xcejqtf2nbrexx3vqjhp41";

async function collection(slug: string, extra: Extra = {}) {
  const res = await site.call("POST", "/api/collections", { slug, title: `Title ${slug}`, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; slug: string; updatedAt: number };
}
async function post(body: Extra) {
  const res = await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "text", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; slug: string };
}
async function list(query = "") {
  const res = await site.call("GET", `/api/collections${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    collections: { id: string; threadCount: number; recentActivityAt: number }[];
    smartCollections: { id: string }[];
    directoryItems: { id: string | null; type: string; collectionId: string | null }[];
  };
}
const figuresOf = async (id: string, query = "") => {
  const found = (await list(query)).collections.find((c) => c.id === id);
  return found && { threadCount: found.threadCount, recentActivityAt: found.recentActivityAt };
};
const collectionIdsOf = async (postId: string) =>
  (await site.call("GET", `/api/posts/${postId}`)).body.collectionIds as string[];

describe("collections CRUD", () => {
  it("creates, reads, updates and deletes with the spec's fields", async () => {
    const created = await site.call("POST", "/api/collections", {
      slug: "reading",
      title: "  Reading  ",
      description: "Books",
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^col_/),
      slug: "reading",
      title: "Reading",
      description: "Books",
      sortOrder: "newest",
      createdAt: T + 10_000,
      updatedAt: T + 10_000,
    });
    const id = created.body.id;
    expect((await site.call("GET", `/api/collections/${id}`)).body).toEqual(created.body);

    site.clock.advance(5);
    const updated = await site.call("PUT", `/api/collections/${id}`, {
      slug: "books",
      sortOrder: "rating_desc",
      description: null,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      slug: "books",
      title: "Reading",
      description: null,
      sortOrder: "rating_desc",
    });
    // The old address is free again, the new one taken.
    expect((await site.call("GET", "/api/collections/slug?mode=check&slug=reading")).body).toEqual({
      slug: "reading",
      available: true,
    });
    expect((await site.call("GET", "/api/collections/slug?mode=check&slug=books")).body.available).toBe(
      false,
    );
    expect(
      (await site.call("GET", `/api/collections/slug?mode=check&slug=books&collectionId=${id}`)).body
        .available,
    ).toBe(true);

    const thread = await post({ title: "kept", collectionIds: [id] });
    expect((await site.call("DELETE", `/api/collections/${id}`)).body).toEqual({ success: true });
    expectError(await site.call("GET", `/api/collections/${id}`), 404, "NOT_FOUND");
    expectError(await site.call("DELETE", `/api/collections/${id}`), 404, "NOT_FOUND");
    // Posts remain, without the collection; its address and directory item are gone.
    expect(await collectionIdsOf(thread.id)).toEqual([]);
    expect((await site.call("GET", "/api/collections/slug?mode=check&slug=books")).body.available).toBe(true);
    expect((await list()).directoryItems).toEqual([]);
    await collection("books");
  });

  it("refuses bad input with 400 naming the field, changing nothing", async () => {
    const cases: [Extra, string][] = [
      [{ title: "x" }, "slug"],
      [{ slug: "Upper", title: "x" }, "slug"],
      [{ slug: "a_b", title: "x" }, "slug"],
      [{ slug: "-a", title: "x" }, "slug"],
      [{ slug: "a".repeat(201), title: "x" }, "slug"],
      [{ slug: "api", title: "x" }, "slug"],
      [{ slug: "ok" }, "title"],
      [{ slug: "ok", title: "   " }, "title"],
      [{ slug: "ok", title: "t".repeat(121) }, "title"],
      [{ slug: "ok", title: "x", description: "d".repeat(501) }, "description"],
      [{ slug: "ok", title: "x", sortOrder: "popular" }, "sortOrder"],
      [{ slug: 5, title: "x" }, "slug"],
      [{ slug: "ok", title: ["x"] }, "title"],
    ];
    for (const [body, field] of cases) {
      const res = await site.call("POST", "/api/collections", body);
      expectError(res, 400, "VALIDATION_ERROR", JSON.stringify(body));
      expect(Object.keys(res.body.details.fieldErrors), JSON.stringify(body)).toContain(field);
    }
    expect(await list()).toEqual({
      collections: [],
      smartCollections: expect.any(Array),
      directoryItems: [],
    });
    expect((await site.call("GET", "/api/collections/slug?mode=check&slug=ok")).body.available).toBe(true);

    const { id } = await collection("ok");
    for (const body of [{ title: "" }, { slug: "Bad" }, { description: 5 }, { sortOrder: "x" }]) {
      expectError(await site.call("PUT", `/api/collections/${id}`, body), 400, "VALIDATION_ERROR");
    }
    expect((await site.call("GET", `/api/collections/${id}`)).body).toMatchObject({
      slug: "ok",
      title: "Title ok",
    });
    expectError(await site.call("GET", "/api/collections/col_bad"), 400, "VALIDATION_ERROR");
    expectError(await site.call("GET", `/api/collections/${unknownPost}`), 400, "VALIDATION_ERROR");
    expectError(await site.call("GET", `/api/collections/${unknownCollection}`), 404, "NOT_FOUND");
    expectError(
      await site.call("PUT", `/api/collections/${unknownCollection}`, { title: "x" }),
      404,
      "NOT_FOUND",
    );
    expectError(await site.call("GET", "/api/collections/slug?mode=suggest&slug=x"), 400, "VALIDATION_ERROR");
    expectError(await site.call("GET", "/api/collections/slug?mode=check&slug=Bad"), 400, "VALIDATION_ERROR");
    expectError(await site.call("GET", "/api/collections/slug?mode=check&slug=api"), 400, "VALIDATION_ERROR");
    expectError(await site.call("GET", "/api/collections?view=list"), 400, "VALIDATION_ERROR");
    expectError(await site.call("GET", "/api/collections?lang=not a tag"), 400, "VALIDATION_ERROR");
    expectError(
      await site.call("GET", "/api/collections", undefined, { authorization: "" }),
      401,
      "UNAUTHORIZED",
    );
  });

  it("shares one address space with posts: 409 either way", async () => {
    const taken = await post({ slug: "taken" });
    expectError(await site.call("POST", "/api/collections", { slug: "taken", title: "x" }), 409, "CONFLICT");
    const { id } = await collection("mine");
    expectError(await site.call("POST", "/api/posts", { format: "note", slug: "mine" }), 409, "CONFLICT");
    expectError(await site.call("PUT", `/api/collections/${id}`, { slug: "taken" }), 409, "CONFLICT");
    expectError(await site.call("PUT", `/api/posts/${taken.id}`, { slug: "mine" }), 409, "CONFLICT");
    expectError(await site.call("POST", "/api/collections", { slug: "mine", title: "x" }), 409, "CONFLICT");
    expect((await list()).collections.map((c) => c.id)).toEqual([id]);
    expect((await site.call("GET", `/api/collections/${id}`)).body.slug).toBe("mine");
  });
});

describe("memberships", () => {
  it("add, remove, pin and unpin act on the whole Thread from a root or reply ID", async () => {
    const { id } = await collection("c");
    const root = await post({ title: "root", publishedAt: T + 1, createdAt: T + 1 });
    const reply = await post({ replyToId: root.id, publishedAt: T + 2, createdAt: T + 2 });
    const ok = { success: true };

    expect((await site.call("POST", `/api/collections/${id}/threads`, { threadId: reply.id })).body).toEqual(
      ok,
    );
    expect(await collectionIdsOf(root.id)).toEqual([id]);
    expect(await collectionIdsOf(reply.id)).toEqual([id]);
    // Adding again is ok and changes nothing.
    expect((await site.call("POST", `/api/collections/${id}/threads`, { threadId: root.id })).body).toEqual(
      ok,
    );
    expect(await figuresOf(id)).toEqual({ threadCount: 1, recentActivityAt: T + 2 });

    expect((await site.call("PUT", `/api/collections/${id}/threads/${reply.id}/pin`)).body).toEqual(ok);
    expect((await site.call("PUT", `/api/collections/${id}/threads/${root.id}/pin`)).body).toEqual(ok);
    expect((await site.call("DELETE", `/api/collections/${id}/threads/${reply.id}/pin`)).body).toEqual(ok);
    expect((await site.call("DELETE", `/api/collections/${id}/threads/${reply.id}/pin`)).body).toEqual(ok);

    expect((await site.call("DELETE", `/api/collections/${id}/threads/${reply.id}`)).body).toEqual(ok);
    expect(await collectionIdsOf(root.id)).toEqual([]);
    expect(await figuresOf(id)).toEqual({ threadCount: 0, recentActivityAt: expect.any(Number) });
    // Removing a Thread that is not in the collection is ok too.
    expect((await site.call("DELETE", `/api/collections/${id}/threads/${root.id}`)).body).toEqual(ok);
    // Pinning or unpinning a Thread that is not in the collection is 404, and adds nothing.
    expectError(await site.call("PUT", `/api/collections/${id}/threads/${root.id}/pin`), 404, "NOT_FOUND");
    expectError(await site.call("DELETE", `/api/collections/${id}/threads/${root.id}/pin`), 404, "NOT_FOUND");
    expect(await collectionIdsOf(root.id)).toEqual([]);
  });

  it("answers 400 for malformed IDs and 404 for unknown ones, changing nothing", async () => {
    const { id } = await collection("c");
    const root = await post({ title: "root" });
    const add = (collectionId: string, body: unknown) =>
      site.call("POST", `/api/collections/${collectionId}/threads`, body);
    expectError(await add(id, {}), 400, "VALIDATION_ERROR");
    expectError(await add(id, { threadId: "pst_nope" }), 400, "VALIDATION_ERROR");
    expectError(await add(id, { threadId: id }), 400, "VALIDATION_ERROR");
    expectError(await add(id, { threadId: 7 }), 400, "VALIDATION_ERROR");
    expectError(await add("col_nope", { threadId: root.id }), 400, "VALIDATION_ERROR");
    expectError(await add(id, { threadId: unknownPost }), 404, "NOT_FOUND");
    expectError(await add(unknownCollection, { threadId: root.id }), 404, "NOT_FOUND");
    expectError(await site.call("DELETE", `/api/collections/${id}/threads/xyz`), 400, "VALIDATION_ERROR");
    expectError(await site.call("DELETE", `/api/collections/${id}/threads/${unknownPost}`), 404, "NOT_FOUND");
    expectError(
      await site.call("PUT", `/api/collections/${unknownCollection}/threads/${root.id}/pin`),
      404,
      "NOT_FOUND",
    );
    expect(await collectionIdsOf(root.id)).toEqual([]);
  });
});

describe("collections on posts", () => {
  it("sets, replaces and clears a Thread's set from the root; a reply's PUT replaces it too", async () => {
    const a = await collection("a");
    const b = await collection("b");
    const root = await post({ title: "r", collectionIds: [a.id, a.id] });
    expect(await collectionIdsOf(root.id)).toEqual([a.id]);
    const reply = await post({ replyToId: root.id, collectionIds: [] });
    expect(await collectionIdsOf(reply.id)).toEqual([a.id]);

    const fromReply = await site.call("PUT", `/api/posts/${reply.id}`, { collectionIds: [b.id] });
    expect(fromReply.status, JSON.stringify(fromReply.body)).toBe(200);
    expect(fromReply.body).not.toHaveProperty("collectionIds");
    expect(await collectionIdsOf(reply.id)).toEqual([b.id]);
    expect(await collectionIdsOf(root.id)).toEqual([b.id]);

    // Omitted keeps; [] empties.
    await site.call("PUT", `/api/posts/${root.id}`, { title: "renamed" });
    expect(await collectionIdsOf(root.id)).toEqual([b.id]);
    await site.call("PUT", `/api/posts/${root.id}`, { collectionIds: [] });
    expect(await collectionIdsOf(root.id)).toEqual([]);
    expect(await figuresOf(b.id)).toMatchObject({ threadCount: 0 });
  });

  it("collectionEntries win over collectionIds and keep restored times and pins", async () => {
    const a = await collection("a", { sortOrder: "oldest" });
    const b = await collection("b");
    const x = await post({
      title: "x",
      publishedAt: T + 1,
      collectionIds: [b.id],
      collectionEntries: [{ collectionId: a.id, createdAt: T - 50, position: 3, pinnedAt: T - 10 }],
    });
    const y = await post({ title: "y", publishedAt: T + 2, collectionIds: [a.id] });
    expect(await collectionIdsOf(x.id)).toEqual([a.id]);
    // The pin came through: x lists first in a's list although a lists oldest first and y is newer.
    const page = await site.call("GET", "/api/threads?collection=a");
    expect(page.body.threads.map((t: { id: string }) => t.id)).toEqual([x.id, y.id]);
    // An update by entries replaces the set and sets the entry's fields on a kept membership.
    await site.call("PUT", `/api/posts/${x.id}`, {
      collectionEntries: [{ collectionId: a.id, pinnedAt: null }],
    });
    const after = await site.call("GET", "/api/threads?collection=a&sort=activity");
    expect(after.body.threads.map((t: { id: string }) => t.id)).toEqual([y.id, x.id]);
  });

  it("refuses collections on a new reply, unknown and malformed collections, more than 20", async () => {
    const a = await collection("a");
    const root = await post({ title: "r" });
    const create = (body: Extra) =>
      site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "t", ...body });
    const rejected = async (res: Awaited<ReturnType<typeof create>>, field: string) => {
      expectError(res, 400, "VALIDATION_ERROR");
      // A nested mistake is named by its full path (collectionIds[0]); the field leads it.
      const fields = Object.keys(res.body.details.fieldErrors);
      expect(
        fields.some((name) => name === field || name.startsWith(`${field}[`) || name.startsWith(`${field}.`)),
        fields.join(),
      ).toBe(true);
    };
    await rejected(await create({ replyToId: root.id, collectionIds: [a.id] }), "collectionIds");
    await rejected(
      await create({ replyToId: root.id, collectionEntries: [{ collectionId: a.id }] }),
      "collectionIds",
    );
    await rejected(await create({ collectionIds: [unknownCollection] }), "collectionIds");
    await rejected(
      await create({ collectionEntries: [{ collectionId: unknownCollection }] }),
      "collectionEntries",
    );
    await rejected(await create({ collectionIds: ["col_bad"] }), "collectionIds");
    await rejected(await create({ collectionIds: a.id }), "collectionIds");
    const many = Array.from({ length: 21 }, () => a.id);
    await rejected(await create({ collectionIds: many }), "collectionIds");
    await rejected(
      await site.call("PUT", `/api/posts/${root.id}`, { collectionIds: [unknownCollection] }),
      "collectionIds",
    );
    // Nothing was created or changed.
    expect((await site.call("GET", "/api/posts?limit=100")).body.posts).toHaveLength(1);
    expect(await figuresOf(a.id)).toMatchObject({ threadCount: 0 });
  });
});

describe("GET /api/collections figures", () => {
  it("counts published Threads of every visibility, by language, and follows post writes", async () => {
    const a = await collection("a");
    const b = await collection("b");
    const one = await post({ title: "1", publishedAt: T + 10, language: "en", collectionIds: [a.id, b.id] });
    await post({
      title: "2",
      publishedAt: T + 20,
      visibility: "private",
      language: "fr",
      collectionIds: [a.id],
    });
    await post({ title: "3", status: "draft", collectionIds: [a.id] });
    expect(await figuresOf(a.id)).toEqual({ threadCount: 2, recentActivityAt: T + 20 });
    expect(await figuresOf(a.id, "?lang=en")).toEqual({ threadCount: 1, recentActivityAt: T + 10 });
    expect(await figuresOf(a.id, "?lang=fr")).toEqual({ threadCount: 1, recentActivityAt: T + 20 });
    expect(await figuresOf(a.id, "?lang=de")).toEqual({
      threadCount: 0,
      recentActivityAt: expect.any(Number),
    });
    expect(await figuresOf(b.id)).toEqual({ threadCount: 1, recentActivityAt: T + 10 });

    // A reply moves activity; a language change moves the Thread between languages.
    const reply = await post({ replyToId: one.id, publishedAt: T + 30 });
    expect(await figuresOf(b.id)).toEqual({ threadCount: 1, recentActivityAt: T + 30 });
    await site.call("PUT", `/api/posts/${one.id}`, { language: "fr" });
    expect(await figuresOf(a.id, "?lang=fr")).toEqual({ threadCount: 2, recentActivityAt: T + 30 });
    expect(await figuresOf(a.id, "?lang=en")).toMatchObject({ threadCount: 0 });
    // Unpublishing and deleting the reply, then deleting the root.
    await site.call("DELETE", `/api/posts/${reply.id}`);
    expect(await figuresOf(b.id)).toEqual({ threadCount: 1, recentActivityAt: T + 10 });
    await site.call("PUT", `/api/posts/${one.id}`, { status: "draft" });
    expect(await figuresOf(b.id)).toMatchObject({ threadCount: 0 });
    await site.call("PUT", `/api/posts/${one.id}`, { status: "published", publishedAt: T + 40 });
    expect(await figuresOf(b.id)).toEqual({ threadCount: 1, recentActivityAt: T + 40 });
    await site.call("DELETE", `/api/posts/${one.id}`);
    expect(await figuresOf(b.id)).toMatchObject({ threadCount: 0 });
    expect(await figuresOf(a.id)).toEqual({ threadCount: 1, recentActivityAt: T + 20 });
  });

  it("view=compose lists collections by recent activity with no directory and no smart collections", async () => {
    const quiet = await collection("quiet");
    const busy = await collection("busy");
    const middle = await collection("middle");
    await post({ title: "1", publishedAt: T + 100, collectionIds: [busy.id] });
    await post({ title: "2", publishedAt: T + 50, collectionIds: [middle.id] });
    const compose = await list("?view=compose");
    expect(compose.directoryItems).toEqual([]);
    expect(compose.smartCollections).toEqual([]);
    // quiet has no activity: its recentActivityAt is its updatedAt (the fixed clock, after both posts).
    expect(compose.collections.map((c) => c.id)).toEqual([quiet.id, busy.id, middle.id]);
    expect(compose.collections[0]?.recentActivityAt).toBe(quiet.updatedAt);
    const plain = await list();
    expect(plain.collections.map((c) => c.id)).toEqual([quiet.id, busy.id, middle.id]);
    expect(plain.directoryItems.map((item) => item.collectionId)).toEqual([quiet.id, busy.id, middle.id]);
  });
});

describe("collections on public posts", () => {
  it("public posts and Threads name their Thread's collections with their public URL", async () => {
    const a = await collection("alpha");
    const b = await collection("beta");
    const alias = await site.call("POST", "/api/custom-urls", {
      path: "/topics/beta",
      targetType: "collection",
      targetId: b.id,
    });
    expect(alias.status, JSON.stringify(alias.body)).toBe(201);
    const root = await post({ slug: "tagged", collectionIds: [a.id, b.id] });
    await post({ replyToId: root.id, slug: "tagged-reply" });
    const refs = [
      { id: a.id, slug: "alpha", title: "Title alpha", url: "/alpha" },
      { id: b.id, slug: "beta", title: "Title beta", url: "/topics/beta" },
    ];
    expect((await site.call("GET", "/api/public/posts/tagged")).body.collections).toEqual(refs);
    expect((await site.call("GET", "/api/public/posts/tagged-reply")).body.collections).toEqual(refs);
    const threads = (await site.call("GET", "/api/public/threads?include=fold")).body.threads;
    expect(threads[0].root.collections).toEqual(refs);
    const shownReplies = [...threads[0].fold.leading, ...threads[0].fold.trailing];
    expect(shownReplies.map((p: { collections: unknown }) => p.collections)).toEqual([refs]);
    const posts = (await site.call("GET", "/api/public/threads/tagged/posts")).body.posts;
    expect(posts.map((p: { collections: unknown }) => p.collections)).toEqual([refs, refs]);
    // The editing view carries collectionIds, not collections.
    expect((await site.call("GET", `/api/threads/${root.id}`)).body.root).not.toHaveProperty("collections");

    // Deleting a collection frees its custom URL too.
    await site.call("DELETE", `/api/collections/${b.id}`);
    expect((await site.call("GET", "/api/public/posts/tagged")).body.collections).toEqual([refs[0]]);
    expect((await site.call("GET", "/api/custom-urls")).body.customUrls).toEqual([]);
    const again = await site.call("POST", "/api/custom-urls", {
      path: "/topics/beta",
      targetType: "collection",
      targetId: a.id,
    });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect((await site.call("GET", "/api/public/posts/tagged")).body.collections).toEqual([
      { ...refs[0], url: "/topics/beta" },
    ]);
  });
});
