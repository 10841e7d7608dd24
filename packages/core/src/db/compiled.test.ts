import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase } from "../testing/test-engine.js";
import { compiled } from "./compiled.js";
import { migrateToLatest } from "./migrate.js";
import type { Database } from "./schema.js";

let db: Kysely<Database>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const opened = await openTestDatabase();
  db = opened.db;
  cleanup = opened.cleanup;
  await migrateToLatest(db);
  await db
    .insertInto("site_addresses")
    .values([
      { path: "a", owner_type: "post", owner_id: "p1" },
      { path: "b", owner_type: "post", owner_id: "p2" },
      { path: "c", owner_type: "collection", owner_id: "c1" },
      { path: "d", owner_type: "post", owner_id: "p3" },
    ])
    .execute();
});

afterAll(async () => {
  await cleanup();
});

let builds = 0;
const byOwnerType = compiled<{ type: string; limit: number }>()((db, p) => {
  builds++;
  return (
    db
      .selectFrom("site_addresses")
      .select(["path", "owner_id"])
      .where("owner_type", "=", p.value("type"))
      // A constant of the builder stays in place between the placeholders.
      .where("path", "<>", "zzz")
      .orderBy("path")
      .limit(p.value("limit"))
  );
});

const byPaths = compiled<{ paths: string[]; type: string }>()((db, p) =>
  db
    .selectFrom("site_addresses")
    .select("path")
    .where("path", "in", p.list("paths"))
    .where("owner_type", "=", p.value("type"))
    .orderBy("path"),
);

describe("compiled statements", () => {
  it("answer each call's values, building the query once per database", async () => {
    builds = 0;
    expect(await byOwnerType.execute(db, { type: "post", limit: 10 })).toEqual([
      { path: "a", owner_id: "p1" },
      { path: "b", owner_id: "p2" },
      { path: "d", owner_id: "p3" },
    ]);
    expect(await byOwnerType.execute(db, { type: "post", limit: 1 })).toEqual([
      { path: "a", owner_id: "p1" },
    ]);
    expect(await byOwnerType.executeTakeFirst(db, { type: "collection", limit: 5 })).toEqual({
      path: "c",
      owner_id: "c1",
    });
    expect(await byOwnerType.executeTakeFirst(db, { type: "nothing", limit: 5 })).toBeUndefined();
    expect(builds).toBe(1);
  });

  it("keep one SQL text whatever the values, constants included", () => {
    const one = byOwnerType.compile(db, { type: "post", limit: 1 });
    const two = byOwnerType.compile(db, { type: "collection", limit: 7 });
    expect(one.sql).toBe(two.sql);
    expect(one.parameters).toEqual(["post", "zzz", 1]);
    expect(two.parameters).toEqual(["collection", "zzz", 7]);
  });

  it("run in a transaction, on the transaction's connection, without building again", async () => {
    builds = 0;
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto("site_addresses")
        .values({ path: "e", owner_type: "post", owner_id: "p4" })
        .execute();
      const rows = await byOwnerType.execute(trx, { type: "post", limit: 10 });
      expect(rows.map((row) => row.path)).toEqual(["a", "b", "d", "e"]);
      await trx.deleteFrom("site_addresses").where("path", "=", "e").execute();
    });
    expect(builds).toBe(0);
  });

  it("take a list of any length as one parameter", async () => {
    const paths = (list: string[], type = "post") =>
      byPaths.execute(db, { paths: list, type }).then((rows) => rows.map((row) => row.path));
    expect(await paths(["a"])).toEqual(["a"]);
    expect(await paths(["d", "b", "c", "x"])).toEqual(["b", "d"]);
    expect(await paths(["c", "a"], "collection")).toEqual(["c"]);
    expect(await paths([])).toEqual([]);
    // Quotes and commas are values, not syntax.
    expect(await paths(["a', 'b", 'a","b'])).toEqual([]);
    const short = byPaths.compile(db, { paths: ["a"], type: "post" });
    const long = byPaths.compile(db, { paths: ["a", "b", "c"], type: "post" });
    expect(short.sql).toBe(long.sql);
  });
});
