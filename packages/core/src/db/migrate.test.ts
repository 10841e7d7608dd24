import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestDatabase } from "../testing/test-engine.js";
import { migrateToLatest } from "./migrate.js";
import { migrations } from "./migrations/index.js";

let opened: Awaited<ReturnType<typeof openTestDatabase>>;
beforeEach(async () => {
  opened = await openTestDatabase();
});
afterEach(() => opened.cleanup());

describe("migrateToLatest", () => {
  it("applies every migration once, in order", async () => {
    const names = Object.keys(migrations).sort();
    expect(await migrateToLatest(opened.db)).toEqual(names);
    expect(await migrateToLatest(opened.db)).toEqual([]);
    const rows = await sql<{ name: string }>`select name from quire_migrations order by name`.execute(
      opened.db,
    );
    expect(rows.rows.map((row) => row.name)).toEqual(names);
  });

  it("serialises concurrent runs", async () => {
    const runs = await Promise.all([migrateToLatest(opened.db), migrateToLatest(opened.db)]);
    expect(runs.flat().sort()).toEqual(Object.keys(migrations).sort());
  });

  it("rolls a failing migration back whole and reports CONFIGURATION_ERROR", async () => {
    await migrateToLatest(opened.db);
    const broken = {
      ...migrations,
      "999-broken": {
        up: async (db: Parameters<NonNullable<(typeof migrations)[string]>["up"]>[0]) => {
          await db.schema.createTable("half_done").addColumn("id", "text").execute();
          await sql`select * from no_such_table`.execute(db);
        },
      },
    };
    await expect(migrateToLatest(opened.db, broken)).rejects.toMatchObject({ code: "CONFIGURATION_ERROR" });
    await expect(sql`select count(*) from half_done`.execute(opened.db)).rejects.toThrow();
  });
});
