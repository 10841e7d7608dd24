import { CompiledQuery, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineError } from "../errors.js";
import { encodeCursor } from "../shared/cursor.js";
import { openTestDatabase, testDatabaseKind } from "../testing/test-engine.js";
import {
  afterKeys,
  type KeysetOrder,
  type KeysetPage,
  type KeysetSegment,
  pageByKeys,
  pageBySegments,
  readCursor,
} from "./keyset.js";

interface Item {
  id: string;
  rank: number;
  at: number;
  name: string;
  pinned: number;
}
type Items = { keyset_items: Item };

let db: Kysely<Items>;
let close: () => Promise<void>;
const items: Item[] = [];

// 40 rows with many ties on every key but the ID, inserted out of order.
beforeAll(async () => {
  const opened = await openTestDatabase();
  db = opened.db.withTables<Items>() as unknown as Kysely<Items>;
  close = opened.cleanup;
  await db.schema
    .createTable("keyset_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("rank", "integer", (c) => c.notNull())
    .addColumn("at", "bigint", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("pinned", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("keyset_items_order")
    .on("keyset_items")
    .columns(["rank", "at", "id"])
    .execute();
  for (let n = 0; n < 40; n++) {
    const k = (n * 17) % 40;
    items.push({
      id: `itm_${String(k).padStart(2, "0")}`,
      rank: k % 3,
      at: 1_700_000_000 + (k % 5),
      // Lower-case letters sort alike in every collation, so the reference sort agrees with the database.
      name: ["b", "a", "c", "a", "b"][k % 5] as string,
      pinned: k % 7 === 0 ? 1 : 0,
    });
  }
  await db.insertInto("keyset_items").values(items).execute();
});
afterAll(() => close?.());

const all = () => db.selectFrom("keyset_items").selectAll();

const descending: KeysetOrder<Item> = {
  name: "items.desc",
  direction: "desc",
  keys: [
    { column: "rank", type: "integer" },
    { column: "keyset_items.at", type: "integer" },
    { column: "id", type: "string" },
  ],
};
const mixed: KeysetOrder<Item> = {
  name: "items.mixed",
  direction: "asc",
  keys: [
    { column: "rank", type: "integer", direction: "desc" },
    { column: "at", type: "integer" },
    { column: "id", type: "string", direction: "desc" },
  ],
};
const byName: KeysetOrder<Item> = {
  name: "items.name",
  direction: "asc",
  keys: [
    { column: "name", type: "string" },
    { column: "at", type: "integer", direction: "desc" },
    { column: "id", type: "string" },
  ],
};
/** The same order as `descending`, each key naming its direction. */
const descendingByKey: KeysetOrder<Item> = {
  name: "items.desc.keys",
  direction: "asc",
  keys: descending.keys.map((key) => ({ ...key, direction: "desc" })),
};
const byId: KeysetOrder<Item> = {
  name: "items.id",
  direction: "desc",
  keys: [{ column: "id", type: "string" }],
};

/** The reference order, written from the order's keys: compare key by key in each key's direction. */
function sorted(rows: Item[], order: KeysetOrder<Item>): string[] {
  const compare = (a: Item, b: Item) => {
    for (const key of order.keys) {
      const name = key.column.split(".").at(-1) as keyof Item;
      const [x, y] = [a[name], b[name]];
      const step = x < y ? -1 : x > y ? 1 : 0;
      if (step !== 0) return (key.direction ?? order.direction) === "desc" ? -step : step;
    }
    return 0;
  };
  return [...rows].sort(compare).map((row) => row.id);
}

async function walk(read: (cursor: string | undefined) => Promise<KeysetPage<Item>>, limit: number) {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages <= 100; pages++) {
    const page = await read(cursor);
    seen.push(...page.rows.map((row) => row.id));
    if (page.nextCursor === null) return seen;
    expect(page.rows).toHaveLength(limit);
    cursor = page.nextCursor;
  }
  throw new Error("walk did not end");
}

describe("pageByKeys", () => {
  it.each([descending, descendingByKey, mixed, byName, byId])(
    "walks $name in order, every row once, at every page size",
    async (order) => {
      for (const limit of [1, 2, 3, 7, 39, 40, 41]) {
        const seen = await walk((cursor) => pageByKeys(all(), order, { cursor, limit }), limit);
        expect(seen, `limit ${limit}`).toEqual(sorted(items, order));
      }
    },
  );

  it("keeps the query's own conditions and ends with a null cursor on an exactly full last page", async () => {
    const ranked = () => all().where("rank", "=", 1);
    const expected = sorted(
      items.filter((item) => item.rank === 1),
      descending,
    );
    const first = await pageByKeys(ranked(), descending, { limit: expected.length - 1 });
    expect(first.nextCursor).not.toBeNull();
    const rest = await pageByKeys(ranked(), descending, { cursor: first.nextCursor ?? "", limit: 1 });
    expect([...first.rows, ...rest.rows].map((row) => row.id)).toEqual(expected);
    expect(rest.nextCursor).toBeNull();
    expect(await pageByKeys(all().where("rank", "=", 9), descending, { limit: 5 })).toEqual({
      rows: [],
      nextCursor: null,
    });
  });

  it("refuses a cursor of another order, of the wrong shape or types, garbage and bare IDs with a 400 on cursor", async () => {
    const first = await pageByKeys(all(), descending, { limit: 2 });
    const forged = (keys: unknown[]) => encodeCursor({ order: descending.name, keys: keys as never });
    const bad = [
      (await pageByKeys(all(), mixed, { limit: 2 })).nextCursor,
      forged([1, 1_700_000_000]),
      forged([1, 1_700_000_000, "itm_01", 4]),
      forged(["1", 1_700_000_000, "itm_01"]),
      forged([1.5, 1_700_000_000, "itm_01"]),
      forged([1, 2 ** 60, "itm_01"]),
      forged([null, 1_700_000_000, "itm_01"]),
      forged([1, 1_700_000_000, 7]),
      forged([1, 1_700_000_000, "itm\u000001"]),
      btoa(`{"o":"${descending.name}","k":[1,1e400,"itm_01"]}`).replace(/=+$/, ""),
      "%%%",
      "pst_01h2xcejqtf2nbrexx3vqjhp41",
      "bm90IGpzb24",
    ];
    expect(first.nextCursor).not.toBeNull();
    for (const cursor of bad) {
      const err = await pageByKeys(all(), descending, { cursor: cursor ?? "", limit: 2 }).catch((x) => x);
      expect(err, String(cursor)).toBeInstanceOf(EngineError);
      expect(err.code).toBe("VALIDATION_ERROR");
      expect(err.details.fieldErrors).toHaveProperty("cursor");
    }
  });

  it.runIf(testDatabaseKind() === "sqlite")(
    "compares keys of one direction as a row value, a range on an index of the keys",
    async () => {
      const plan = async (order: KeysetOrder<Item>) => {
        const keys = readCursor((await pageByKeys(all(), order, { limit: 1 })).nextCursor ?? "", [
          order,
        ]).keys;
        const query = all().where(afterKeys(order, keys)).orderBy("rank", "desc").compile();
        const { rows } = await db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
        );
        return rows.map((row) => row.detail).join("; ");
      };
      for (const order of [descending, descendingByKey]) {
        expect(await plan(order)).toContain("USING INDEX keyset_items_order ((rank,at,id)<(?,?,?))");
      }
    },
  );
});

describe("pageBySegments", () => {
  const segments = (): KeysetSegment<Items, "keyset_items", Item>[] => [
    {
      order: {
        name: "items.pinned",
        direction: "desc",
        keys: [{ column: "at", type: "integer" }, descending.keys[2]!],
      },
      query: all().where("pinned", "=", 1),
    },
    { order: { ...byId, name: "items.rest", direction: "asc" }, query: all().where("pinned", "=", 0) },
  ];
  const expected = () => [
    ...sorted(
      items.filter((item) => item.pinned === 1),
      segments()[0]!.order,
    ),
    ...sorted(
      items.filter((item) => item.pinned === 0),
      segments()[1]!.order,
    ),
  ];

  it("walks the segments one after another, a page crossing from one into the next", async () => {
    const pinned = items.filter((item) => item.pinned === 1).length;
    for (const limit of [1, 2, pinned - 1, pinned, pinned + 1, 40, 41]) {
      const seen = await walk((cursor) => pageBySegments(segments(), { cursor, limit }), limit);
      expect(seen, `limit ${limit}`).toEqual(expected());
    }
  });

  it("names the segment in the cursor, and refuses a cursor of neither segment", async () => {
    const pinned = items.filter((item) => item.pinned === 1).length;
    const first = await pageBySegments(segments(), { limit: pinned });
    const orders = segments().map((segment) => segment.order);
    expect(readCursor(first.nextCursor ?? "", orders).segment).toBe(0);
    const second = await pageBySegments(segments(), { cursor: first.nextCursor ?? "", limit: 1 });
    expect(readCursor(second.nextCursor ?? "", orders).segment).toBe(1);
    const other = encodeCursor({ order: "items.desc", keys: [1, 1_700_000_000, "itm_01"] });
    const err = await pageBySegments(segments(), { cursor: other, limit: 1 }).catch((x) => x);
    expect(err.code).toBe("VALIDATION_ERROR");
    expect(err.details.fieldErrors).toHaveProperty("cursor");
  });
});
