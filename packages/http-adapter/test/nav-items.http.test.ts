import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

const T = 1_700_000_000;
let site: TestSite;
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now: T } });
});

type Extra = Record<string, unknown>;
type Item = { id: string; type: string; label: string; displayLabel: string; url: string; position: string };

async function created(path: string, body: Extra) {
  const res = await site.call("POST", path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
const add = (body: Extra) => created("/api/nav-items", body) as Promise<Item>;
async function navItems(): Promise<Item[]> {
  const res = await site.call("GET", "/api/nav-items");
  expect(res.status).toBe(200);
  return res.body.navItems;
}
const labels = async () => (await navItems()).map((item) => item.displayLabel);

describe("POST /api/nav-items", () => {
  it("creates links and built-in items at the end, each with its fields", async () => {
    const link = await add({ type: "link", label: "  Home  ", url: "/" });
    expect(link).toEqual({
      id: expect.stringMatching(/^nav_/),
      type: "link",
      label: "Home",
      displayLabel: "Home",
      url: "/",
      position: expect.any(String),
      createdAt: T,
      updatedAt: T,
    });
    const rss = await add({ type: "system", systemKey: "rss" });
    expect(rss).toMatchObject({ type: "system", systemKey: "rss", label: "RSS", url: "/rss" });
    expect(rss).not.toHaveProperty("collectionId");
    await add({ type: "link", label: "Mail", url: "mailto:me@example.com" });
    await add({ type: "link", label: "Elsewhere", url: "https://example.com/x?y=1" });
    expect(await labels()).toEqual(["Home", "RSS", "Mail", "Elsewhere"]);
    expectError(
      await site.call("POST", "/api/nav-items", { type: "system", systemKey: "rss" }),
      409,
      "CONFLICT",
    );
    expect(await navItems()).toHaveLength(4);
  });

  it("refuses bad input with 400 and stores nothing", async () => {
    const draft = await created("/api/posts", { format: "note", title: "Draft", status: "draft" });
    const secret = await created("/api/posts", { format: "note", title: "Secret", visibility: "private" });
    const untitled = await created("/api/posts", { format: "note", bodyMarkdown: "no title" });
    const link = await created("/api/posts", { format: "link", title: "L", url: "https://l.example" });
    const bad: Extra[] = [
      {},
      { type: "folder" },
      { type: "link", label: "   ", url: "/x" },
      { type: "link", label: "x".repeat(101), url: "/x" },
      { type: "link", label: "x" },
      { type: "link", label: "x", url: "javascript:alert(1)" },
      { type: "link", label: "x", url: "//evil.example" },
      { type: "link", label: "x", url: "ftp://files.example" },
      { type: "system", systemKey: "home" },
      { type: "collection" },
      { type: "collection", collectionId: "col_01h455vb4pex5vsknk084sn02q" },
      { type: "collection", collectionId: "smc_01h455vb4pex5vsknk084sn02q" },
      { type: "smart_collection", smartCollectionId: "smc_01h455vb4pex5vsknk084sn02q" },
      { type: "page", postId: "pst_01h455vb4pex5vsknk084sn02q" },
      { type: "page", postId: draft.id },
      { type: "page", postId: secret.id },
      { type: "page", postId: untitled.id },
      { type: "page", postId: link.id },
    ];
    for (const body of bad) {
      expectError(
        await site.call("POST", "/api/nav-items", body),
        400,
        "VALIDATION_ERROR",
        JSON.stringify(body),
      );
    }
    expect(await navItems()).toEqual([]);
  });

  it("needs a session or token", async () => {
    expectError(
      await site.call("GET", "/api/nav-items", undefined, { authorization: "" }),
      401,
      "UNAUTHORIZED",
    );
  });
});

describe("target items", () => {
  it("show the target's current title and address, follow renames and slug moves, keep a sent label", async () => {
    const col = await created("/api/collections", { slug: "photos", title: "Photos" });
    const smc = await created("/api/smart-collections", {
      slug: "links",
      title: "Links",
      selection: { format: "link" },
    });
    const page = await created("/api/posts", { format: "note", title: "About me", slug: "about" });
    const items = [
      await add({ type: "collection", collectionId: col.id }),
      await add({ type: "smart_collection", smartCollectionId: smc.id }),
      await add({ type: "page", postId: page.id }),
      await add({ type: "collection", collectionId: col.id, label: "Pictures" }),
    ];
    expect(items.map((item) => [item.label, item.displayLabel, item.url])).toEqual([
      ["", "Photos", "/photos"],
      ["", "Links", "/links"],
      ["", "About me", "/about"],
      ["Pictures", "Pictures", "/photos"],
    ]);
    expect(items[0]).toMatchObject({ collectionId: col.id });
    expect(items[1]).toMatchObject({ smartCollectionId: smc.id });
    expect(items[2]).toMatchObject({ postId: page.id });

    expect(
      (await site.call("PUT", `/api/collections/${col.id}`, { title: "Images", slug: "images" })).status,
    ).toBe(200);
    expect(
      (await site.call("PUT", `/api/smart-collections/${smc.id}`, { title: "Bookmarks", slug: "bookmarks" }))
        .status,
    ).toBe(200);
    expect((await site.call("PUT", `/api/posts/${page.id}`, { title: "About" })).status).toBe(200);
    const now = await navItems();
    expect(now.map((item) => [item.label, item.displayLabel, item.url])).toEqual([
      ["", "Images", "/images"],
      ["", "Bookmarks", "/bookmarks"],
      ["", "About", "/about"],
      ["Pictures", "Pictures", "/images"],
    ]);

    // Address moves: a collection or a page with custom URLs lives at the oldest (the collection's
    // item kept /images before).
    for (const [targetType, targetId, path] of [
      ["collection", col.id, "/c/images"],
      ["post", page.id, "/pages/about"],
    ] as const) {
      const custom = await site.call("POST", "/api/custom-urls", { path, targetType, targetId });
      expect(custom.status, JSON.stringify(custom.body)).toBe(201);
    }
    await site.call("POST", "/api/custom-urls", {
      path: "/c/later",
      targetType: "collection",
      targetId: col.id,
    });
    expect((await navItems()).map((item) => item.url)).toEqual([
      "/c/images",
      "/bookmarks",
      "/pages/about",
      "/c/images",
    ]);
  });

  it("uses the site's path prefix in addresses", async () => {
    const blog = await createTestSite({ engineConfig: { now: T, settings: { sitePathPrefix: "/blog" } } });
    const col = await blog.call("POST", "/blog/api/collections", { slug: "photos", title: "Photos" });
    await blog.call("POST", "/blog/api/nav-items", { type: "collection", collectionId: col.body.id });
    await blog.call("POST", "/blog/api/nav-items", { type: "system", systemKey: "archive" });
    await blog.call("POST", "/blog/api/nav-items", { type: "link", label: "Home", url: "/" });
    const res = await blog.call("GET", "/blog/api/nav-items");
    expect(res.body.navItems.map((item: Item) => item.url)).toEqual(["/blog/photos", "/blog/archive", "/"]);
  });

  it("leave the list when their target is deleted or the page is no longer readable, and can still be deleted", async () => {
    const col = await created("/api/collections", { slug: "photos", title: "Photos" });
    const smc = await created("/api/smart-collections", { slug: "all", title: "All" });
    const page = await created("/api/posts", { format: "note", title: "About" });
    await add({ type: "link", label: "Home", url: "/" });
    const colItem = await add({ type: "collection", collectionId: col.id });
    await add({ type: "smart_collection", smartCollectionId: smc.id });
    await add({ type: "page", postId: page.id });
    expect(await labels()).toEqual(["Home", "Photos", "All", "About"]);
    await site.call("DELETE", `/api/collections/${col.id}`);
    await site.call("DELETE", `/api/smart-collections/${smc.id}`);
    await site.call("PUT", `/api/posts/${page.id}`, { visibility: "private" });
    expect(await labels()).toEqual(["Home"]);
    await site.call("PUT", `/api/posts/${page.id}`, { visibility: "public" });
    expect(await labels()).toEqual(["Home", "About"]);
    await site.call("DELETE", `/api/posts/${page.id}`);
    expect(await labels()).toEqual(["Home"]);
    expect((await site.call("DELETE", `/api/nav-items/${colItem.id}`)).body).toEqual({ success: true });
  });
});

describe("PUT /api/nav-items/:id", () => {
  it("changes a link's label and url, a target item's label only, a built-in item's neither", async () => {
    const link = await add({ type: "link", label: "Home", url: "/" });
    const col = await created("/api/collections", { slug: "photos", title: "Photos" });
    const colItem = await add({ type: "collection", collectionId: col.id });
    const rss = await add({ type: "system", systemKey: "rss" });
    site.clock.advance(3);
    const res = await site.call("PUT", `/api/nav-items/${link.id}`, {
      label: " Start ",
      url: "https://example.com",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      label: "Start",
      url: "https://example.com",
      updatedAt: T + 3,
      position: link.position,
    });
    const named = await site.call("PUT", `/api/nav-items/${colItem.id}`, { label: "Pics" });
    expect(named.body).toMatchObject({ label: "Pics", displayLabel: "Pics", url: "/photos" });
    const following = await site.call("PUT", `/api/nav-items/${colItem.id}`, { label: "" });
    expect(following.body).toMatchObject({ label: "", displayLabel: "Photos" });

    const refused: [string, Extra][] = [
      [rss.id, { label: "Feed" }],
      [rss.id, { url: "/feed" }],
      [colItem.id, { url: "/elsewhere" }],
      [link.id, { label: "  " }],
      [link.id, { label: "x".repeat(101) }],
      [link.id, { url: "javascript:alert(1)" }],
      ["nav_01h455vb4pex5vsknk084sn02q", { label: "unused" }],
    ];
    for (const [id, body] of refused) {
      const answer = await site.call("PUT", `/api/nav-items/${id}`, body);
      expect(answer.status, JSON.stringify(body)).toBe(id === refused.at(-1)?.[0] ? 404 : 400);
    }
    expect((await navItems()).map((item) => [item.label, item.url])).toEqual([
      ["Start", "https://example.com"],
      ["", "/photos"],
      ["RSS", "/rss"],
    ]);
  });
});

describe("PUT /api/nav-items/:id/move and DELETE", () => {
  it("moves after, before, between and to the end; refuses unknown neighbours", async () => {
    const [a, b, c, d] = [
      await add({ type: "link", label: "a", url: "/a" }),
      await add({ type: "link", label: "b", url: "/b" }),
      await add({ type: "link", label: "c", url: "/c" }),
      await add({ type: "link", label: "d", url: "/d" }),
    ] as [Item, Item, Item, Item];
    const move = (item: Item, body: Extra) => site.call("PUT", `/api/nav-items/${item.id}/move`, body);
    expect((await move(d, { after: a.id })).status).toBe(200);
    expect(await labels()).toEqual(["a", "d", "b", "c"]);
    await move(a, { before: c.id });
    expect(await labels()).toEqual(["d", "b", "a", "c"]);
    await move(c, { before: d.id });
    expect(await labels()).toEqual(["c", "d", "b", "a"]);
    await move(a, { after: c.id, before: d.id });
    expect(await labels()).toEqual(["c", "a", "d", "b"]);
    const end = await move(c, {});
    expect(end.body.position > ((await navItems())[2]?.position ?? "")).toBe(true);
    expect(await labels()).toEqual(["a", "d", "b", "c"]);
    await move(d, { after: null, before: null });
    expect(await labels()).toEqual(["a", "b", "c", "d"]);

    expectError(await move(a, { after: a.id }), 400, "VALIDATION_ERROR");
    expectError(await move(a, { after: "nav_01h455vb4pex5vsknk084sn02q" }), 400, "VALIDATION_ERROR");
    expectError(await move(a, { after: d.id, before: b.id }), 400, "VALIDATION_ERROR");
    expectError(await move(a, { after: "pst_01h455vb4pex5vsknk084sn02q" }), 400, "VALIDATION_ERROR");
    expectError(
      await site.call("PUT", "/api/nav-items/nav_01h455vb4pex5vsknk084sn02q/move", {}),
      404,
      "NOT_FOUND",
    );
    expect(await labels()).toEqual(["a", "b", "c", "d"]);
    // `after` and `before` with items between them (a list that changed since the client read it):
    // right after `after`, still before `before`. The key between the two was b's: 500 before.
    const between = await move(d, { after: a.id, before: c.id });
    expect(between.status, JSON.stringify(between.body)).toBe(200);
    expect(await labels()).toEqual(["a", "d", "b", "c"]);
    await move(d, {});

    expect((await site.call("DELETE", `/api/nav-items/${b.id}`)).body).toEqual({ success: true });
    expectError(await site.call("DELETE", `/api/nav-items/${b.id}`), 404, "NOT_FOUND");
    expect(await labels()).toEqual(["a", "c", "d"]);
  });

  it("keeps every key short however often items move into one gap (a key grew a character per six moves)", async () => {
    const [a, b, c] = [
      await add({ type: "link", label: "A", url: "/a" }),
      await add({ type: "link", label: "B", url: "/b" }),
      await add({ type: "link", label: "C", url: "/c" }),
      await add({ type: "link", label: "D", url: "/d" }),
    ];
    // B and C take turns right after A: each new key falls between A's and the last one's.
    for (let round = 0; round < 600; round++) {
      const moved = await site.call("PUT", `/api/nav-items/${(round % 2 === 0 ? c : b).id}/move`, {
        after: a.id,
      });
      expect(moved.status).toBe(200);
    }
    const list = await navItems();
    expect(list.map((item) => item.label)).toEqual(["A", "B", "C", "D"]);
    expect(Math.max(...list.map((item) => item.position.length))).toBeLessThanOrEqual(32);
  });

  it("concurrent appends and moves never share a position", async () => {
    const busy = await createTestSite({ engineConfig: { now: T, poolSize: 8 } });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        busy.call("POST", "/api/nav-items", { type: "link", label: `l${i}`, url: "/" }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(201));
    const ids = answers.map((res) => res.body.id as string);
    const moves = await Promise.all(
      ids.slice(1).map((id) => busy.call("PUT", `/api/nav-items/${id}/move`, { after: ids[0] })),
    );
    expect(moves.map((res) => res.status)).toEqual(Array(7).fill(200));
    const list = (await busy.call("GET", "/api/nav-items")).body.navItems as Item[];
    expect(list).toHaveLength(8);
    expect(new Set(list.map((item) => item.position)).size).toBe(8);
    expect(list[0]?.id).toBe(ids[0]);
  });

  it("two requests for one built-in item at once: one 201, one 409", async () => {
    const busy = await createTestSite({ engineConfig: { now: T, poolSize: 8 } });
    const answers = await Promise.all([
      busy.call("POST", "/api/nav-items", { type: "system", systemKey: "archive" }),
      busy.call("POST", "/api/nav-items", { type: "system", systemKey: "archive" }),
    ]);
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409]);
  });
});
