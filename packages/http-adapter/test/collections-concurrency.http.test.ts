import { describe, expect, it } from "vitest";
import { createTestSite, type TestResponse, type TestSite } from "./helpers.js";

/**
 * Concurrent writers on collections, memberships and the directory. On PostgreSQL the engine gets
 * a pool big enough for the requests to overlap (READ COMMITTED); on SQLite they serialise.
 * @see docs/collections.md § Concurrent writers
 */
const T = 1_700_000_000;
const site = () => createTestSite({ engineConfig: { now: T, poolSize: 10 } });
const all = (requests: (() => Promise<TestResponse>)[]) => Promise.all(requests.map((request) => request()));

async function created(s: TestSite, path: string, body: object): Promise<{ id: string }> {
  const res = await s.call("POST", path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe("concurrent collection writers", () => {
  it("two collections claiming one slug: exactly one 201 and one 409", async () => {
    const s = await site();
    for (let round = 0; round < 6; round++) {
      const slug = `race-${round}`;
      const answers = await all([
        () => s.call("POST", "/api/collections", { slug, title: "a" }),
        () => s.call("POST", "/api/collections", { slug, title: "b" }),
      ]);
      expect(answers.map((res) => res.status).sort()).toEqual([201, 409]);
      expect(answers.find((res) => res.status === 409)?.body.code).toBe("CONFLICT");
    }
    const body = (await s.call("GET", "/api/collections")).body;
    expect(body.collections).toHaveLength(6);
    // Each has exactly one directory item; none was appended at the same key as another.
    const positions = body.directoryItems.map((item: { position: string }) => item.position);
    expect(body.directoryItems).toHaveLength(6);
    expect(new Set(positions).size).toBe(6);
  });

  it("a collection and a post claiming one address: one wins", async () => {
    const s = await site();
    for (let round = 0; round < 6; round++) {
      const slug = `shared-${round}`;
      const [collection, post] = await all([
        () => s.call("POST", "/api/collections", { slug, title: "c" }),
        () => s.call("POST", "/api/posts", { format: "note", slug, bodyMarkdown: "x" }),
      ]);
      expect([collection?.status, post?.status].sort()).toEqual([201, 409]);
    }
    const collections = (await s.call("GET", "/api/collections")).body.collections.length;
    const posts = (await s.call("GET", "/api/posts")).body.posts.length;
    expect(collections + posts).toBe(6);
  });

  it("keeps figures exact through concurrent adds, removals, replies, post edits and a deletion", async () => {
    const s = await site();
    const a = await created(s, "/api/collections", { slug: "a", title: "a" });
    const b = await created(s, "/api/collections", { slug: "b", title: "b" });
    const roots = [];
    for (let i = 0; i < 8; i++) {
      roots.push(
        await created(s, "/api/posts", { format: "note", bodyMarkdown: `r${i}`, publishedAt: T + i }),
      );
    }
    const requests: (() => Promise<TestResponse>)[] = [];
    roots.forEach((root, i) => {
      requests.push(() => s.call("POST", `/api/collections/${a.id}/threads`, { threadId: root.id }));
      requests.push(() => s.call("POST", `/api/collections/${b.id}/threads`, { threadId: root.id }));
      requests.push(() =>
        s.call("POST", "/api/posts", {
          format: "note",
          replyToId: root.id,
          bodyMarkdown: "re",
          publishedAt: T + 100 + i,
        }),
      );
      if (i % 2 === 0) requests.push(() => s.call("PUT", `/api/posts/${root.id}`, { collectionIds: [b.id] }));
      if (i % 3 === 0) requests.push(() => s.call("PUT", `/api/posts/${root.id}`, { language: "fr" }));
      if (i === 7) requests.push(() => s.call("DELETE", `/api/posts/${root.id}`));
      if (i === 5) requests.push(() => s.call("PUT", `/api/collections/${a.id}/threads/${root.id}/pin`));
    });
    const answers = await all(requests);
    for (const res of answers) expect([200, 201, 404], JSON.stringify(res.body)).toContain(res.status);

    // The figures equal what the Threads themselves say now.
    const truth = new Map<string, { count: number; recent: number; fr: number }>();
    for (const root of roots) {
      const res = await s.call("GET", `/api/posts/${root.id}`);
      if (res.status === 404) continue;
      for (const id of res.body.collectionIds as string[]) {
        const entry = truth.get(id) ?? { count: 0, recent: 0, fr: 0 };
        entry.count += 1;
        entry.recent = Math.max(entry.recent, res.body.lastActivityAt);
        if (res.body.language === "fr") entry.fr += 1;
        truth.set(id, entry);
      }
    }
    const listed = (await s.call("GET", "/api/collections")).body.collections;
    const french = (await s.call("GET", "/api/collections?lang=fr")).body.collections;
    for (const collection of listed) {
      const expected = truth.get(collection.id);
      expect(collection.threadCount, collection.slug).toBe(expected?.count ?? 0);
      if (expected) expect(collection.recentActivityAt, collection.slug).toBe(expected.recent);
      const fr = french.find((c: { id: string }) => c.id === collection.id);
      expect(fr.threadCount, `${collection.slug} fr`).toBe(expected?.fr ?? 0);
    }
    expect(truth.get(b.id)?.count).toBe(7);
  });

  it("a collection deleted while Threads are added and posts name it leaves no membership behind", async () => {
    const s = await site();
    const doomed = await created(s, "/api/collections", { slug: "doomed", title: "d" });
    const roots = [];
    for (let i = 0; i < 6; i++)
      roots.push(await created(s, "/api/posts", { format: "note", bodyMarkdown: `r${i}` }));
    const answers = await all([
      ...roots.map(
        (root) => () => s.call("POST", `/api/collections/${doomed.id}/threads`, { threadId: root.id }),
      ),
      () => s.call("DELETE", `/api/collections/${doomed.id}`),
      ...roots.map((root) => () => s.call("PUT", `/api/posts/${root.id}`, { collectionIds: [doomed.id] })),
    ]);
    for (const res of answers) expect([200, 400, 404], JSON.stringify(res.body)).toContain(res.status);
    for (const root of roots) {
      expect((await s.call("GET", `/api/posts/${root.id}`)).body.collectionIds).toEqual([]);
    }
    expect((await s.call("GET", "/api/collections")).body).toMatchObject({
      collections: [],
      directoryItems: [],
    });
  });

  it("concurrent directory writers never share a key", async () => {
    const s = await site();
    const first = await created(s, "/api/collections/directory-items", { type: "divider", label: "first" });
    const answers = await all([
      ...Array.from(
        { length: 6 },
        (_, i) => () =>
          s.call("POST", "/api/collections/directory-items", { type: "link", label: `l${i}`, url: "/x" }),
      ),
      ...Array.from(
        { length: 4 },
        (_, i) => () => s.call("POST", "/api/collections", { slug: `c${i}`, title: "c" }),
      ),
    ]);
    const moves = await all(
      answers
        .slice(0, 6)
        .map(
          (res) => () =>
            s.call("PUT", `/api/collections/directory-items/${res.body.id}/move`, { after: first.id }),
        ),
    );
    for (const res of [...answers, ...moves])
      expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
    const items = (await s.call("GET", "/api/collections")).body.directoryItems as { position: string }[];
    expect(items).toHaveLength(11);
    expect(new Set(items.map((item) => item.position)).size).toBe(11);
  });
});
