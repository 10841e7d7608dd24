import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

const T = 1_700_000_000;
let site: TestSite;
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now: T } });
});

type Item = {
  id: string | null;
  type: string;
  collectionId: string | null;
  smartCollectionId: string | null;
  label: string | null;
  url: string | null;
  description: string | null;
  position: string | null;
};
const unknownItem = "cdi_01h2xcejqtf2nbrexx3vqjhp41";

async function collection(slug: string) {
  const res = await site.call("POST", "/api/collections", { slug, title: slug });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}
async function item(body: Record<string, unknown>) {
  const res = await site.call("POST", "/api/collections/directory-items", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Item;
}
async function directory(): Promise<Item[]> {
  const res = await site.call("GET", "/api/collections");
  expect(res.status).toBe(200);
  return res.body.directoryItems;
}
/** The directory as short names: a collection by its ID, an item by its label. */
const names = async (labels: Record<string, string>) =>
  (await directory()).map((entry) =>
    entry.type === "collection"
      ? (labels[entry.collectionId as string] ?? "?")
      : entry.type === "smart_collection"
        ? (labels[entry.smartCollectionId as string] ?? "?")
        : (entry.label ?? "(divider)"),
  );
const move = (id: string, body: Record<string, unknown>) =>
  site.call("PUT", `/api/collections/directory-items/${id}/move`, body);

describe("directory items", () => {
  it("creates dividers and links with the label and url rules", async () => {
    const divider = await item({ type: "divider", label: "   " });
    expect(divider).toEqual({
      id: expect.stringMatching(/^cdi_/),
      type: "divider",
      collectionId: null,
      smartCollectionId: null,
      label: null,
      url: null,
      description: null,
      position: expect.any(String),
      createdAt: T,
      updatedAt: T,
    });
    expect((await item({ type: "divider" })).label).toBeNull();
    expect((await item({ type: "divider", label: " Reading " })).label).toBe("Reading");
    const link = await item({ type: "link", label: " Home ", url: "/about", description: "**Me**" });
    expect(link).toMatchObject({ type: "link", label: "Home", url: "/about", description: "**Me**" });
    for (const url of ["https://example.com/x?y=1", "http://example.com", "mailto:me@example.com"]) {
      expect((await item({ type: "link", label: "x", url })).url).toBe(url);
    }
    // 60 characters after trimming, an emoji one (31 emoji, or a short label after 195 spaces, were
    // refused: UTF-16 units, and a cap before the trim).
    expect((await item({ type: "divider", label: "😀".repeat(60) })).label).toBe("😀".repeat(60));
    expect((await item({ type: "link", label: `${" ".repeat(195)}Short`, url: "/x" })).label).toBe("Short");
    expect((await item({ type: "divider", label: " ".repeat(250) })).label).toBeNull();

    const refused: [Record<string, unknown>, string][] = [
      [{ type: "collection", collectionId: "col_01h2xcejqtf2nbrexx3vqjhp41" }, "type"],
      [{ type: "smart_collection" }, "type"],
      [{ type: "widget" }, "type"],
      [{}, "type"],
      [{ type: "divider", label: "x".repeat(61) }, "label"],
      [{ type: "divider", label: "😀".repeat(61) }, "label"],
      [{ type: "divider", label: 5 }, "label"],
      [{ type: "link", url: "/x" }, "label"],
      [{ type: "link", label: "   ", url: "/x" }, "label"],
      [{ type: "link", label: "x".repeat(61), url: "/x" }, "label"],
      [{ type: "link", label: "x" }, "url"],
      [{ type: "link", label: "x", url: "javascript:alert(1)" }, "url"],
      [{ type: "link", label: "x", url: "//evil.example" }, "url"],
      [{ type: "link", label: "x", url: "ftp://example.com" }, "url"],
      [{ type: "link", label: "x", url: "relative/path" }, "url"],
      [{ type: "link", label: "x", url: "/a b" }, "url"],
      [{ type: "link", label: "x", url: "/x", description: 3 }, "description"],
    ];
    const before = await directory();
    for (const [body, field] of refused) {
      const res = await site.call("POST", "/api/collections/directory-items", body);
      expectError(res, 400, "VALIDATION_ERROR", JSON.stringify(body));
      const fields = Object.keys(res.body.details?.fieldErrors ?? {});
      expect(fields.length === 0 || fields.includes(field), `${JSON.stringify(body)}: ${fields}`).toBe(true);
    }
    expect(await directory()).toEqual(before);
  });

  it("updates labels, urls and descriptions by type", async () => {
    const divider = await item({ type: "divider", label: "a" });
    const link = await item({ type: "link", label: "b", url: "/b" });
    const { id: colId } = await collection("c");
    const colItem = (await directory()).find((entry) => entry.collectionId === colId) as Item;
    const put = (id: string, body: unknown) =>
      site.call("PUT", `/api/collections/directory-items/${id}`, body);

    expect((await put(divider.id as string, { label: null })).body.label).toBeNull();
    expect((await put(divider.id as string, { label: " new " })).body.label).toBe("new");
    expectError(await put(divider.id as string, { url: "/x" }), 400, "VALIDATION_ERROR");
    const updated = await put(link.id as string, { url: "https://example.com", description: "d" });
    expect(updated.body).toMatchObject({ label: "b", url: "https://example.com", description: "d" });
    expect((await put(link.id as string, { description: null })).body.description).toBeNull();
    expectError(await put(link.id as string, { label: null }), 400, "VALIDATION_ERROR");
    expectError(await put(link.id as string, { label: "  " }), 400, "VALIDATION_ERROR");
    expectError(await put(link.id as string, { url: "javascript:x" }), 400, "VALIDATION_ERROR");
    expectError(await put(colItem.id as string, { label: "x" }), 400, "VALIDATION_ERROR");
    expectError(await put(unknownItem, { label: "x" }), 404, "NOT_FOUND");
    expectError(await put("cdi_bad", { label: "x" }), 400, "VALIDATION_ERROR");
    expect((await directory()).find((entry) => entry.id === link.id)).toMatchObject({
      label: "b",
      url: "https://example.com",
      description: null,
    });
  });

  it("moves after, before, between, to the ends, and appends with neither", async () => {
    const a = await item({ type: "divider", label: "a" });
    const b = await item({ type: "divider", label: "b" });
    const c = await item({ type: "divider", label: "c" });
    const d = await item({ type: "divider", label: "d" });
    const labels = {};
    expect(await names(labels)).toEqual(["a", "b", "c", "d"]);
    const moved = await move(d.id as string, { after: a.id });
    expect(moved.status).toBe(200);
    expect(moved.body.id).toBe(d.id);
    expect(moved.body.position).not.toBe(d.position);
    expect(await names(labels)).toEqual(["a", "d", "b", "c"]);
    await move(a.id as string, { before: c.id });
    expect(await names(labels)).toEqual(["d", "b", "a", "c"]);
    await move(c.id as string, { before: d.id });
    expect(await names(labels)).toEqual(["c", "d", "b", "a"]);
    await move(c.id as string, { after: a.id });
    expect(await names(labels)).toEqual(["d", "b", "a", "c"]);
    await move(d.id as string, {});
    expect(await names(labels)).toEqual(["b", "a", "c", "d"]);
    await move(d.id as string, { after: b.id, before: a.id });
    expect(await names(labels)).toEqual(["b", "d", "a", "c"]);
    await move(c.id as string, { after: null, before: null });
    expect(await names(labels)).toEqual(["b", "d", "a", "c"]);
    // With items between `after` and `before`: right after `after`. The key between the two was
    // a's, stored twice (the directory has no unique index), and the next move then answered 500.
    expect((await move(c.id as string, { after: b.id, before: a.id })).status).toBe(200);
    expect(await names(labels)).toEqual(["b", "c", "d", "a"]);
    expect(new Set((await directory()).map((entry) => entry.position)).size).toBe(4);
    await move(c.id as string, {});
    expect(await names(labels)).toEqual(["b", "d", "a", "c"]);
    // Many moves into one gap never need renumbering: only the moved item's key changes.
    for (let i = 0; i < 30; i++) await move((i % 2 === 0 ? a.id : d.id) as string, { after: b.id });
    expect(await names(labels)).toEqual(["b", "d", "a", "c"]);
    const positions = (await directory()).map((entry) => entry.position as string);
    expect([...positions].sort()).toEqual(positions);
  });

  it("moves among items that share one key (as an earlier release could store them) by spreading every key", async () => {
    const [a, b, c] = [
      await item({ type: "divider", label: "a" }),
      await item({ type: "divider", label: "b" }),
      await item({ type: "divider", label: "c" }),
    ];
    await site.engine.context.db
      .updateTable("directory_items")
      .set({ position: a.position as string })
      .where("id", "=", b.id as string)
      .execute();
    // No key lies between a's and b's: the move answered 500.
    const moved = await move(c.id as string, { after: a.id });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const labels = {};
    expect((await names(labels))[1]).toBe("c");
    const positions = (await directory()).map((entry) => entry.position as string);
    expect(new Set(positions).size).toBe(3);
    expect([...positions].sort()).toEqual(positions);
  });

  it("keeps every key short however often items move into one gap (a key grew a character per six moves)", async () => {
    const [a, b, c] = [
      await item({ type: "link", label: "A", url: "/a" }),
      await item({ type: "link", label: "B", url: "/b" }),
      await item({ type: "link", label: "C", url: "/c" }),
      await item({ type: "link", label: "D", url: "/d" }),
    ];
    // B and C take turns right after A: each new key falls between A's and the last one's.
    for (let round = 0; round < 600; round++) {
      expect((await move((round % 2 === 0 ? c : b).id as string, { after: a.id })).status).toBe(200);
    }
    const list = await directory();
    expect(list.map((entry) => entry.label)).toEqual(["A", "B", "C", "D"]);
    expect(Math.max(...list.map((entry) => (entry.position as string).length))).toBeLessThanOrEqual(32);
  });

  it("refuses moves naming unknown or wrong items, changing nothing", async () => {
    const a = await item({ type: "divider", label: "a" });
    const b = await item({ type: "divider", label: "b" });
    const before = await directory();
    expectError(await move(unknownItem, {}), 404, "NOT_FOUND");
    expectError(await move("cdi_bad", {}), 400, "VALIDATION_ERROR");
    expectError(await move(a.id as string, { after: unknownItem }), 400, "VALIDATION_ERROR");
    expectError(await move(a.id as string, { before: unknownItem }), 400, "VALIDATION_ERROR");
    expectError(await move(a.id as string, { after: a.id }), 400, "VALIDATION_ERROR");
    expectError(
      await move(a.id as string, { after: "col_01h2xcejqtf2nbrexx3vqjhp41" }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await move(a.id as string, { after: 4 }), 400, "VALIDATION_ERROR");
    expectError(await move(a.id as string, { after: b.id, before: b.id }), 400, "VALIDATION_ERROR");
    expectError(await move("col_01h2xcejqtf2nbrexx3vqjhp41", {}), 404, "NOT_FOUND");
    expectError(await move("smc_01h2xcejqtf2nbrexx3vqjhp41", {}), 404, "NOT_FOUND");
    expect(await directory()).toEqual(before);
  });

  it("lists every collection and smart collection; unplaced ones are appended and can be placed by moving", async () => {
    const one = await collection("one");
    const divider = await item({ type: "divider", label: "div" });
    const two = await collection("two");
    const smart = await site.call("POST", "/api/smart-collections", { slug: "smart", title: "Smart" });
    expect(smart.status, JSON.stringify(smart.body)).toBe(201);
    const labels = { [one.id]: "one", [two.id]: "two", [smart.body.id]: "smart" };
    const body = (await site.call("GET", "/api/collections")).body;
    expect(body.smartCollections.map((s: { id: string }) => s.id)).toEqual([smart.body.id]);
    expect(body.smartCollections[0]).toMatchObject({ threadCount: 0, recentActivityAt: expect.any(Number) });
    expect(await names(labels)).toEqual(["one", "div", "two", "smart"]);
    const unplaced = (await directory()).at(-1) as Item;
    expect(unplaced).toMatchObject({ id: null, type: "smart_collection", position: null });

    // Placing the smart collection creates its item where asked.
    const placed = await move(smart.body.id, { before: divider.id });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    expect(placed.body).toMatchObject({
      id: expect.stringMatching(/^cdi_/),
      type: "smart_collection",
      smartCollectionId: smart.body.id,
    });
    expect(await names(labels)).toEqual(["one", "smart", "div", "two"]);
    // Moving a collection by its own ID moves its item.
    await move(two.id, { after: one.id as string }).then((res) => expect(res.status).toBe(400));
    const twoItem = (await directory()).find((entry) => entry.collectionId === two.id) as Item;
    const first = (await directory())[0] as Item;
    expect((await move(two.id, { before: first.id })).status).toBe(200);
    expect(await names(labels)).toEqual(["two", "one", "smart", "div"]);

    // Deleting a collection's item unplaces it (appended); deleting the collection removes it.
    expect((await site.call("DELETE", `/api/collections/directory-items/${twoItem.id}`)).body).toEqual({
      success: true,
    });
    expect(await names(labels)).toEqual(["one", "smart", "div", "two"]);
    expectError(
      await site.call("DELETE", `/api/collections/directory-items/${twoItem.id}`),
      404,
      "NOT_FOUND",
    );
    await site.call("DELETE", `/api/collections/${one.id}`);
    expect(await names(labels)).toEqual(["smart", "div", "two"]);
    expect((await site.call("DELETE", `/api/collections/directory-items/${divider.id}`)).status).toBe(200);
    expect(await names(labels)).toEqual(["smart", "two"]);
    // A deleted smart collection leaves the directory, its item included.
    expect((await site.call("DELETE", `/api/smart-collections/${smart.body.id}`)).status).toBe(200);
    expect(await names(labels)).toEqual(["two"]);
  });
});
