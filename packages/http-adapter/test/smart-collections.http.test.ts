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
const root = (title: string | undefined, at: number, extra: Extra = {}) =>
  post({ ...(title === undefined ? {} : { title }), publishedAt: at, createdAt: at, ...extra });

async function create(body: Extra) {
  const res = await site.call("POST", "/api/smart-collections", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; slug: string; updatedAt: number };
}

/** Every smart collection as GET /api/smart-collections lists it. */
async function listed() {
  const res = await site.call("GET", "/api/smart-collections");
  expect(res.status).toBe(200);
  return res.body.smartCollections as {
    id: string;
    slug: string;
    threadCount: number;
    recentActivityAt: number;
  }[];
}

describe("POST /api/smart-collections", () => {
  it("creates the object with defaults and answers it unwrapped; GET /:id reads it back", async () => {
    const res = await site.call("POST", "/api/smart-collections", { slug: "links", title: " Links " });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^smc_/),
      slug: "links",
      title: "Links",
      description: null,
      selection: {},
      sortOrder: "newest",
      layout: null,
      createdAt: T + 10_000,
      updatedAt: T + 10_000,
    });
    const got = await site.call("GET", `/api/smart-collections/${res.body.id}`);
    expect(got.body).toEqual(res.body);
  });

  it("stores every selection key, normalised (media kinds deduplicated in their canonical order)", async () => {
    const body = await create({
      slug: "s",
      title: "S",
      description: "d",
      sortOrder: "rating_desc",
      layout: "grid",
      selection: {
        visibility: "featured",
        media: ["video", "image", "video"],
        year: 2023,
        title: true,
        format: "note",
        replies: false,
      },
    });
    expect(body).toMatchObject({
      description: "d",
      sortOrder: "rating_desc",
      layout: "grid",
      selection: {
        format: "note",
        title: true,
        year: 2023,
        media: ["image", "video"],
        replies: false,
        visibility: "featured",
      },
    });
  });

  it("refuses bad input with 400 naming the field, and stores nothing", async () => {
    const bad: [Extra, string][] = [
      [{ title: "No slug" }, "slug"],
      [{ slug: "no-title" }, "title"],
      [{ slug: "blank", title: "   " }, "title"],
      [{ slug: "Upper", title: "x" }, "slug"],
      [{ slug: "api", title: "reserved" }, "slug"],
      [{ slug: "x", title: "x", sortOrder: "rating" }, "sortOrder"],
      [{ slug: "x", title: "x", layout: "cards" }, "layout"],
      [{ slug: "x", title: "x", selection: { colour: "red" } }, "selection"],
      [{ slug: "x", title: "x", selection: { year: 1970 } }, "selection"],
      [{ slug: "x", title: "x", selection: { year: 2020.5 } }, "selection"],
      [{ slug: "x", title: "x", selection: { visibility: "private" } }, "selection"],
      [{ slug: "x", title: "x", selection: { media: [] } }, "selection"],
      [{ slug: "x", title: "x", selection: { media: "some" } }, "selection"],
      [{ slug: "x", title: "x", selection: { title: "yes" } }, "selection"],
      [{ slug: "x", title: "x", selection: { collection: [] } }, "selection"],
      [{ slug: "x", title: "x", selection: { collection: "col_01h0000000000000000000000" } }, "selection"],
      [{ slug: "x", title: "x", selection: { collection: ["pst_01h455vb4pex5vsknk084sn02q"] } }, "selection"],
      [{ slug: "x", title: "x", selection: [] }, "selection"],
    ];
    for (const [body, field] of bad) {
      const res = await site.call("POST", "/api/smart-collections", body);
      expectError(res, 400, "VALIDATION_ERROR", JSON.stringify(body));
      const named = Object.keys(res.body.details?.fieldErrors ?? {});
      expect(
        named.some((name) => name.startsWith(field)),
        `${JSON.stringify(body)} → ${named}`,
      ).toBe(true);
    }
    expect(await listed()).toEqual([]);
    // The refused slugs were not claimed: a post can take "x".
    await post({ title: "t", slug: "x" });
  });

  it("answers 409 for a slug a post or smart collection holds", async () => {
    await post({ title: "Hello", slug: "hello" });
    expectError(
      await site.call("POST", "/api/smart-collections", { slug: "hello", title: "x" }),
      409,
      "CONFLICT",
    );
    await create({ slug: "taken", title: "x" });
    expectError(
      await site.call("POST", "/api/smart-collections", { slug: "taken", title: "y" }),
      409,
      "CONFLICT",
    );
    expectError(
      await site.call("POST", "/api/posts", { format: "note", title: "t", slug: "taken" }),
      409,
      "CONFLICT",
    );
    expect((await listed()).map((s) => s.slug)).toEqual(["taken"]);
  });

  it("needs a session or token", async () => {
    expectError(
      await site.call("POST", "/api/smart-collections", { slug: "a", title: "a" }, anonymous),
      401,
      "UNAUTHORIZED",
    );
    expectError(await site.call("GET", "/api/smart-collections", undefined, anonymous), 401, "UNAUTHORIZED");
  });

  it("two smart collections claiming one slug at once: one 201, one 409", async () => {
    const concurrent = await createTestSite({ engineConfig: { now: T, poolSize: 8 } });
    for (let round = 0; round < 5; round++) {
      const slug = `race-${round}`;
      const answers = await Promise.all([
        concurrent.call("POST", "/api/smart-collections", { slug, title: "a" }),
        concurrent.call("POST", "/api/smart-collections", { slug, title: "b" }),
      ]);
      expect(answers.map((res) => res.status).sort()).toEqual([201, 409]);
    }
    const res = await concurrent.call("GET", "/api/smart-collections");
    expect(res.body.smartCollections).toHaveLength(5);
  });
});

describe("PUT and DELETE /api/smart-collections/:id", () => {
  it("moves the slug at once (the old address is free, no redirect) and replaces the selection whole", async () => {
    const smc = await create({
      slug: "old",
      title: "x",
      selection: { format: "link", title: true },
      layout: "grid",
    });
    site.clock.advance(5);
    const res = await site.call("PUT", `/api/smart-collections/${smc.id}`, {
      slug: "renamed",
      selection: { replies: true },
      layout: null,
      description: "now described",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      slug: "renamed",
      title: "x",
      selection: { replies: true },
      layout: null,
      description: "now described",
      updatedAt: T + 10_005,
    });
    await post({ title: "takes the old", slug: "old" });
    expectError(
      await site.call("POST", "/api/posts", { format: "note", title: "t", slug: "renamed" }),
      409,
      "CONFLICT",
    );
    // A field left out stays; the same slug again is no move.
    const again = await site.call("PUT", `/api/smart-collections/${smc.id}`, {
      slug: "renamed",
      title: "Renamed",
    });
    expect(again.body).toMatchObject({ slug: "renamed", title: "Renamed", selection: { replies: true } });
  });

  it("refuses a taken slug or bad input on update with nothing changed", async () => {
    const a = await create({ slug: "a", title: "a", selection: { format: "note" } });
    await create({ slug: "b", title: "b" });
    expectError(
      await site.call("PUT", `/api/smart-collections/${a.id}`, { slug: "b", title: "changed" }),
      409,
      "CONFLICT",
    );
    expectError(
      await site.call("PUT", `/api/smart-collections/${a.id}`, { title: "changed", selection: { nope: 1 } }),
      400,
      "VALIDATION_ERROR",
    );
    const got = await site.call("GET", `/api/smart-collections/${a.id}`);
    expect(got.body).toMatchObject({ slug: "a", title: "a", selection: { format: "note" } });
    expectError(
      await site.call("PUT", "/api/smart-collections/smc_01h455vb4pex5vsknk084sn02q", { title: "x" }),
      404,
      "NOT_FOUND",
    );
    expectError(
      await site.call("PUT", "/api/smart-collections/pst_01h455vb4pex5vsknk084sn02q", { title: "x" }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("deletes it and frees its address at once", async () => {
    const smc = await create({ slug: "gone", title: "x" });
    const res = await site.call("DELETE", `/api/smart-collections/${smc.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expectError(await site.call("GET", `/api/smart-collections/${smc.id}`), 404, "NOT_FOUND");
    expectError(await site.call("DELETE", `/api/smart-collections/${smc.id}`), 404, "NOT_FOUND");
    await post({ title: "t", slug: "gone" });
  });
});

describe("GET /api/smart-collections counts and POST /preview", () => {
  it("counts matching Threads for the caller with newest activity, or updatedAt when none match", async () => {
    const a = await root("Titled", T + 100, { format: "link", url: "https://a.example" });
    await root(undefined, T + 200);
    await root("Private", T + 300, { visibility: "private" });
    await root("Hidden", T + 400, { visibility: "latest_hidden" });
    await post({ replyToId: a.id, publishedAt: T + 500, createdAt: T + 500 });
    await post({ title: "draft", status: "draft" });
    await create({ slug: "all", title: "All" });
    await create({ slug: "links", title: "Links", selection: { format: "link" } });
    const none = await create({ slug: "quotes", title: "Quotes", selection: { format: "quote" } });
    await create({ slug: "untitled", title: "U", selection: { title: false } });
    await create({ slug: "latest-hidden", title: "H", selection: { visibility: "latest_hidden" } });
    await create({ slug: "replied", title: "R", selection: { replies: true, year: 2023 } });
    const figures = (await listed()).map((s) => [s.slug, s.threadCount, s.recentActivityAt]);
    expect(figures).toEqual([
      ["all", 4, T + 500],
      ["links", 1, T + 500],
      ["quotes", 0, none.updatedAt],
      ["untitled", 1, T + 200],
      ["latest-hidden", 1, T + 400],
      ["replied", 1, T + 500],
    ]);
    const lang = await site.call("GET", "/api/smart-collections?lang=fr");
    expect(lang.body.smartCollections.map((s: { threadCount: number }) => s.threadCount)).toEqual([
      0, 0, 0, 0, 0, 0,
    ]);
    expectError(await site.call("GET", "/api/smart-collections?lang=not_a_tag"), 400, "VALIDATION_ERROR");

    const preview = await site.call("POST", "/api/smart-collections/preview", { selection: { title: true } });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({ count: 3, baseline: 4 });
    const empty = await site.call("POST", "/api/smart-collections/preview", {});
    expect(empty.body).toEqual({ count: 4, baseline: 4 });
    // lang is a query parameter beside the JSON body (spec § Smart collections); the body may carry it too.
    await root("Deutsch", T + 600, { language: "de" });
    const german = await site.call("POST", "/api/smart-collections/preview?lang=de", {
      selection: { title: true },
    });
    expect(german.body).toEqual({ count: 1, baseline: 1 });
    const inBody = await site.call("POST", "/api/smart-collections/preview", { selection: {}, lang: "de" });
    expect(inBody.body).toEqual({ count: 1, baseline: 1 });
    expectError(
      await site.call("POST", "/api/smart-collections/preview?lang=not_a_tag", {}),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await site.call("POST", "/api/smart-collections/preview", { selection: { year: 1900 } }),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("gathers the Threads of one named collection, which must exist when written; a deleted one matches nothing", async () => {
    const a = await root("a", T + 100);
    await root("b", T + 200);
    const col = await site.call("POST", "/api/collections", { slug: "picks", title: "Picks" });
    expect(col.status).toBe(201);
    expect(
      (await site.call("POST", `/api/collections/${col.body.id}/threads`, { threadId: a.id })).status,
    ).toBe(200);
    const smc = await create({ slug: "picked", title: "P", selection: { collection: [col.body.id] } });
    expect((await listed()).map((s) => s.threadCount)).toEqual([1]);
    const threads = await site.call("GET", `/api/smart-collections/${smc.id}/threads`);
    expect(threads.body.threads.map((t: { id: string }) => t.id)).toEqual([a.id]);
    const preview = await site.call("POST", "/api/smart-collections/preview", {
      selection: { collection: [col.body.id] },
    });
    expect(preview.body).toEqual({ count: 1, baseline: 2 });

    const unknown = "col_01h455vb4pex5vsknk084sn02q";
    for (const [method, path, body] of [
      ["POST", "/api/smart-collections", { slug: "u", title: "u", selection: { collection: [unknown] } }],
      ["PUT", `/api/smart-collections/${smc.id}`, { selection: { collection: [unknown] } }],
      ["POST", "/api/smart-collections/preview", { selection: { collection: [unknown] } }],
    ] as const) {
      const res = await site.call(method, path, body);
      expectError(res, 400, "VALIDATION_ERROR");
      expect(Object.keys(res.body.details.fieldErrors)).toEqual(["selection.collection"]);
    }
    expect((await site.call("DELETE", `/api/collections/${col.body.id}`)).status).toBe(200);
    expect((await listed()).map((s) => s.threadCount)).toEqual([0]);
    const kept = await site.call("GET", `/api/smart-collections/${smc.id}`);
    expect(kept.body.selection).toEqual({ collection: [col.body.id] });
  });

  it("matches `media` kinds and `featured` as the Thread list does", async () => {
    await root("text attached", T + 100, { attachments: [{ type: "text", content: "# notes" }] });
    await root("featured", T + 200, { featured: true });
    await root("featured private", T + 300, { featured: true, visibility: "private" });
    const count = async (selection: Extra) =>
      (await site.call("POST", "/api/smart-collections/preview", { selection })).body.count;
    expect(await count({ media: "any" })).toBe(1);
    expect(await count({ media: "none" })).toBe(2);
    expect(await count({ media: ["text"] })).toBe(1);
    expect(await count({ media: ["image", "video"] })).toBe(0);
    expect(await count({ visibility: "featured" })).toBe(1);
    expect(await count({ visibility: "public" })).toBe(2);
    expect(await count({ visibility: "featured", media: "none" })).toBe(1);
    const listed = await site.call("GET", "/api/threads?media=text");
    expect(listed.body.threads).toHaveLength(await count({ media: ["text"] }));
  });

  it("reads `year` in the site's time zone", async () => {
    const tokyo = await createTestSite({ engineConfig: { now: T, settings: { timeZone: "Asia/Tokyo" } } });
    // 2023-12-31T16:00Z is 2024-01-01 01:00 in Tokyo.
    const at = Date.UTC(2023, 11, 31, 16) / 1000;
    const res = await tokyo.call("POST", "/api/posts", { format: "note", title: "ny", publishedAt: at });
    expect(res.status).toBe(201);
    const count = async (year: number) =>
      (await tokyo.call("POST", "/api/smart-collections/preview", { selection: { year } })).body.count;
    expect([await count(2023), await count(2024)]).toEqual([0, 1]);
  });
});

describe("GET /api/smart-collections/slug", () => {
  it("suggests a free slug and checks one, not captured by /:id", async () => {
    await post({ title: "t", slug: "reading-list" });
    const suggest = await site.call("GET", "/api/smart-collections/slug?mode=suggest&title=Reading%20List");
    expect(suggest.body).toEqual({ slug: "reading-list-2" });
    const smc = await create({ slug: "mine", title: "m" });
    const check = async (query: string) =>
      (await site.call("GET", `/api/smart-collections/slug?mode=check&${query}`)).body;
    expect(await check("slug=mine")).toEqual({ slug: "mine", available: false });
    expect(await check(`slug=mine&smartCollectionId=${smc.id}`)).toEqual({ slug: "mine", available: true });
    expect(await check("slug=free")).toEqual({ slug: "free", available: true });
    expectError(
      await site.call("GET", "/api/smart-collections/slug?mode=check&slug=Bad%20Slug"),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await site.call("GET", "/api/smart-collections/slug?mode=check"), 400, "VALIDATION_ERROR");
    expectError(await site.call("GET", "/api/smart-collections/slug"), 400, "VALIDATION_ERROR");
  });
});

describe("GET /api/smart-collections/:id/threads and the public page", () => {
  async function seed() {
    const a = await root("a", T + 100, { rating: 2 });
    const b = await root("b", T + 300, { rating: 5 });
    const c = await root("c", T + 200);
    const p = await root("p", T + 400, { visibility: "private" });
    await post({ replyToId: a.id, publishedAt: T + 500, createdAt: T + 500 });
    return { a, b, c, p };
  }
  const ids = (body: { threads: { id: string }[] }) => body.threads.map((thread) => thread.id);

  it("lists in the sortOrder, walks by cursor, refuses an unreadable cursor", async () => {
    const { a, b, c, p } = await seed();
    const newest = await create({ slug: "newest", title: "n" });
    const oldest = await create({ slug: "oldest", title: "o", sortOrder: "oldest" });
    const rated = await create({ slug: "rated", title: "r", sortOrder: "rating_desc" });
    const read = async (id: string, query = "") =>
      site.call("GET", `/api/smart-collections/${id}/threads${query}`);
    expect(ids((await read(newest.id)).body)).toEqual([p.id, b.id, c.id, a.id]);
    expect(ids((await read(oldest.id)).body)).toEqual([a.id, c.id, b.id, p.id]);
    expect(ids((await read(rated.id)).body)).toEqual([b.id, a.id, p.id, c.id]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { threads: { id: string }[]; nextCursor: string | null } } = await read(
        oldest.id,
        `?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...ids(page.body));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([a.id, c.id, b.id, p.id]);

    const first = await read(newest.id, "?limit=1");
    expectError(await read(oldest.id, `?cursor=${first.body.nextCursor}`), 400, "VALIDATION_ERROR");
    expectError(await read(newest.id, "?cursor=garbage"), 400, "VALIDATION_ERROR");
    expectError(await read(newest.id, `?cursor=${a.id}`), 400, "VALIDATION_ERROR");
    const folded = await read(newest.id, "?include=fold&content=markdown&limit=100");
    const thread = folded.body.threads.find((t: { id: string }) => t.id === a.id);
    expect(thread.fold.leading.length + thread.fold.trailing.length).toBe(1);
    expect(thread.root.bodyMarkdown).toBe("*text*");
    expectError(await read("smc_01h455vb4pex5vsknk084sn02q"), 404, "NOT_FOUND");
  });

  it("serves readers by slug without private Threads, 404 when the public API is off", async () => {
    const { a, b, c } = await seed();
    await create({ slug: "everything", title: "e" });
    const res = await site.call(
      "GET",
      "/api/public/smart-collections/everything/threads",
      undefined,
      anonymous,
    );
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([b.id, c.id, a.id]);
    expect(res.body.threads[0].root).toHaveProperty("permalink");
    // layout: null reads as the site's archive layout in effect, which a settings write changes at once.
    expect(res.body.smartCollection).toMatchObject({ slug: "everything", title: "e", layout: "list" });
    expect((await site.call("PUT", "/api/settings", { ARCHIVE_DEFAULT_LAYOUT: "grid" })).status).toBe(200);
    const grid = await site.call(
      "GET",
      "/api/public/smart-collections/everything/threads",
      undefined,
      anonymous,
    );
    expect(grid.body.smartCollection.layout).toBe("grid");
    await create({ slug: "listed", title: "l", layout: "list" });
    const own = await site.call("GET", "/api/public/smart-collections/listed/threads", undefined, anonymous);
    expect(own.body.smartCollection.layout).toBe("list");
    expectError(
      await site.call("GET", "/api/public/smart-collections/nope/threads", undefined, anonymous),
      404,
      "NOT_FOUND",
    );
    const closed = await createTestSite({ engineConfig: { settings: { publicApiEnabled: false } } });
    await closed.call("POST", "/api/smart-collections", { slug: "everything", title: "e" });
    expectError(
      await closed.call("GET", "/api/public/smart-collections/everything/threads", undefined, anonymous),
      404,
      "NOT_FOUND",
    );
  });
});
