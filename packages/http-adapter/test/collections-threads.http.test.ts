import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

const T = 1_700_000_000;
let site: TestSite;
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now: T + 10_000 } });
});

type Extra = Record<string, unknown>;
async function collection(slug: string, sortOrder = "newest") {
  const res = await site.call("POST", "/api/collections", { slug, title: slug, sortOrder });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}
async function post(body: Extra) {
  const res = await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "t", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}
const root = (title: string, at: number, extra: Extra = {}) =>
  post({ title, publishedAt: at, createdAt: at, ...extra });

/** The Thread IDs of a list, walked one page of `limit` at a time to the end; each page must be 200. */
async function walk(query: string, limit = 100): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = query.includes("?") ? "&" : "?";
    const url: string = `${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const res = await site.call("GET", url);
    expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
    seen.push(...res.body.threads.map((t: { id: string }) => t.id));
    cursor = res.body.nextCursor;
  } while (cursor);
  return seen;
}
async function cursorOf(query: string): Promise<string> {
  const sep = query.includes("?") ? "&" : "?";
  const res = await site.call("GET", `${query}${sep}limit=1`);
  expect(res.body.nextCursor, query).toEqual(expect.any(String));
  return res.body.nextCursor;
}

/**
 * Collection "c" (sortOrder newest): old (rating 2, pinned in c), mid (rating 5, site-pinned),
 * late (no rating, newest publication), early (rating 5, latest activity through a reply),
 * priv (private). Collection "d" holds other and late; other is pinned in d. Outside: out.
 */
async function seed(sortOrder = "newest") {
  const c = await collection("c", sortOrder);
  const d = await collection("d");
  const old = await root("old", T + 100, { rating: 2, collectionIds: [c.id] });
  const mid = await root("mid", T + 200, { rating: 5, pinned: true, collectionIds: [c.id] });
  const late = await root("late", T + 400, { collectionIds: [c.id, d.id] });
  const early = await root("early", T + 150, { rating: 5, collectionIds: [c.id] });
  await post({ replyToId: early.id, publishedAt: T + 500, createdAt: T + 500 });
  const priv = await root("priv", T + 300, { visibility: "private", collectionIds: [c.id] });
  const other = await root("other", T + 50, { collectionIds: [d.id] });
  const out = await root("out", T + 600);
  await site.call("PUT", `/api/collections/${c.id}/threads/${old.id}/pin`);
  await site.call("PUT", `/api/collections/${d.id}/threads/${other.id}/pin`);
  return { c, d, old, mid, late, early, priv, other, out };
}

describe("Thread lists by collection (spec § Threads rules 4 and 6)", () => {
  it("one collection without sort lists in its sortOrder with its pins on top", async () => {
    const s = await seed();
    // newest: root publication, newest first; old is pinned in c; mid's site-wide pin is not lifted.
    const newest = [s.old.id, s.late.id, s.priv.id, s.mid.id, s.early.id];
    expect(await walk("/api/threads?collection=c")).toEqual(newest);
    expect(await walk("/api/threads?collection=c", 1)).toEqual(newest);
    expect(await walk("/api/threads?collection=c", 2)).toEqual(newest);
    // The public list: same order without the private Thread.
    expect(await walk("/api/public/threads?collection=c", 1)).toEqual(
      newest.filter((id) => id !== s.priv.id),
    );

    await site.call("PUT", `/api/collections/${s.c.id}`, { sortOrder: "oldest" });
    const oldest = [s.old.id, s.early.id, s.mid.id, s.priv.id, s.late.id];
    expect(await walk("/api/threads?collection=c", 1)).toEqual(oldest);

    await site.call("PUT", `/api/collections/${s.c.id}`, { sortOrder: "rating_desc" });
    // Rated first by rating then newest activity (early's reply is newer than mid), unrated after.
    const rating = [s.old.id, s.early.id, s.mid.id, s.late.id, s.priv.id];
    expect(await walk("/api/threads?collection=c", 1)).toEqual(rating);

    await site.call("DELETE", `/api/collections/${s.c.id}/threads/${s.old.id}/pin`);
    expect(await walk("/api/threads?collection=c", 1)).toEqual([
      s.early.id,
      s.mid.id,
      s.old.id,
      s.late.id,
      s.priv.id,
    ]);
  });

  it("several collections list by activity with pins from any of them; a Thread in any one matches once", async () => {
    const s = await seed();
    const activity = [s.old.id, s.other.id, s.early.id, s.late.id, s.priv.id, s.mid.id];
    expect(await walk("/api/threads?collection=c,d", 1)).toEqual(activity);
    expect(await walk("/api/threads?collection=c,d,nope", 2)).toEqual(activity);
    expect(await walk("/api/threads?collection=d", 1)).toEqual([s.other.id, s.late.id]);
  });

  it("activity, oldest and rating keep collection pins; published and updated are plain filters", async () => {
    const s = await seed();
    expect(await walk("/api/threads?collection=c&sort=activity", 1)).toEqual([
      s.old.id,
      s.early.id,
      s.late.id,
      s.priv.id,
      s.mid.id,
    ]);
    expect(await walk("/api/threads?collection=c&sort=oldest", 1)).toEqual([
      s.old.id,
      s.early.id,
      s.mid.id,
      s.priv.id,
      s.late.id,
    ]);
    expect(await walk("/api/threads?collection=c&sort=rating", 1)).toEqual([
      s.old.id,
      s.early.id,
      s.mid.id,
      s.late.id,
      s.priv.id,
    ]);
    expect(await walk("/api/threads?collection=c&sort=published", 1)).toEqual([
      s.late.id,
      s.priv.id,
      s.mid.id,
      s.early.id,
      s.old.id,
    ]);
    expect(await walk("/api/threads?collection=c&sort=updated", 1)).toEqual([
      s.early.id,
      s.late.id,
      s.priv.id,
      s.mid.id,
      s.old.id,
    ]);
    // Other filters combine with the collection.
    expect(await walk("/api/threads?collection=c&replies=any")).toEqual([s.early.id]);
    expect(await walk("/api/threads?collection=c&visibility=private")).toEqual([s.priv.id]);
  });

  it("an unknown slug gives an empty list; drafts list by creation time", async () => {
    const s = await seed();
    for (const query of [
      "?collection=nope",
      "?collection=nope&sort=published",
      "?collection=nope,other",
      // However long, however many (a slug over 200 characters, or 21 slugs, were 400).
      `?collection=${"x".repeat(201)}`,
      `?collection=${Array.from({ length: 21 }, (_, i) => `c${i}`).join(",")}`,
    ]) {
      const res = await site.call("GET", `/api/threads${query}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ threads: [], nextCursor: null });
    }
    // The list is empty, yet its cursor is read as on any list: an unreadable one, or an ID, is 400
    // (one unknown collection answered an empty 200 before), and a collection's own cursor reads.
    const collectionCursor = (await site.call("GET", "/api/threads?collection=c&limit=1")).body.nextCursor;
    for (const base of ["/api/threads", "/api/public/threads"]) {
      for (const cursor of ["garbage!", s.early.id, await cursorOf("/api/threads?sort=published")]) {
        const res = await site.call("GET", `${base}?collection=nope&cursor=${cursor}`);
        expectError(res, 400, "VALIDATION_ERROR", `${base} ${cursor}`);
        expect(res.body.details.fieldErrors).toHaveProperty("cursor");
      }
      const read = await site.call("GET", `${base}?collection=nope&cursor=${collectionCursor}`);
      expect(read.body).toEqual({ threads: [], nextCursor: null });
    }
    const draft = await post({
      title: "draft",
      status: "draft",
      createdAt: T + 700,
      collectionIds: [s.d.id],
    });
    expect(await walk("/api/threads?collection=d&status=draft")).toEqual([draft.id]);
    expect(await walk("/api/threads?collection=d")).toEqual([s.other.id, s.late.id]);
  });

  it("cursors carry their order: a cursor from another order is 400", async () => {
    await seed();
    const collectionNewest = await cursorOf("/api/threads?collection=c");
    const collectionActivity = await cursorOf("/api/threads?collection=c&sort=activity");
    const plainPublished = await cursorOf("/api/threads?sort=published");
    const plainActivity = await cursorOf("/api/threads");
    const refused: [string, string][] = [
      ["/api/threads?collection=c&sort=published", collectionNewest],
      ["/api/threads?collection=c", plainPublished],
      ["/api/threads?collection=c&sort=activity", plainActivity],
      ["/api/threads", collectionActivity],
      ["/api/threads?collection=c&sort=oldest", collectionNewest],
      ["/api/threads?collection=c&sort=rating", collectionActivity],
    ];
    for (const [query, cursor] of refused) {
      const res = await site.call(
        "GET",
        `${query}&cursor=${encodeURIComponent(cursor)}`.replace("threads&", "threads?"),
      );
      expectError(res, 400, "VALIDATION_ERROR", query);
    }
    // Several collections without sort are the activity order of a collection list.
    const res = await site.call(
      "GET",
      `/api/threads?collection=c,d&cursor=${encodeURIComponent(collectionActivity)}`,
    );
    expect(res.status).toBe(200);
  });
});
