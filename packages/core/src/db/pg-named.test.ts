import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { testDatabaseKind } from "../testing/test-engine.js";
import { openDatabase } from "./open.js";

// biome-ignore lint/suspicious/noExplicitAny: scratch tables outside the engine's schema
type Scratch = any;

const url = process.env.QUIRE_TEST_PG_URL as string;
const schemas: string[] = [];
const opened: Kysely<Scratch>[] = [];

/** A pool of ONE connection on a fresh schema, so every query meets the same server session. */
async function open(statementCacheSize?: number): Promise<Kysely<Scratch>> {
  const schema = `named_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  schemas.push(schema);
  const db = (await openDatabase({ url, schema, poolSize: 1, statementCacheSize })) as Kysely<Scratch>;
  opened.push(db);
  await sql`create table t (id integer primary key, name text not null)`.execute(db);
  await sql`insert into t values (1, 'one'), (2, 'two'), (3, 'three')`.execute(db);
  return db;
}

afterEach(async () => {
  for (const db of opened.splice(0)) await db.destroy();
  const admin = await openDatabase({ url, poolSize: 1, statementCacheSize: 0 });
  for (const schema of schemas.splice(0))
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
  await admin.destroy();
});

const prepared = async (db: Kysely<Scratch>) =>
  (
    await sql<{
      name: string;
      statement: string;
    }>`select name, statement from pg_prepared_statements`.execute(db)
  ).rows.filter((row) => row.name.startsWith("quire_"));

const byId = (db: Kysely<Scratch>, id: number) =>
  db.selectFrom("t").select("name").where("id", "=", id).executeTakeFirst();

describe.skipIf(testDatabaseKind() !== "postgres")("named prepared statements on PostgreSQL", () => {
  it("prepares a text with parameters once per connection and answers each run's values", async () => {
    const db = await open();
    expect(await byId(db, 1)).toEqual({ name: "one" });
    expect(await byId(db, 2)).toEqual({ name: "two" });
    expect(await byId(db, 9)).toBeUndefined();
    const statements = await prepared(db);
    expect(statements).toHaveLength(1);
    expect(statements[0]?.statement).toContain('from "t" where "id" = $1');
    // In a transaction too (same connection, same name).
    await db.transaction().execute(async (trx) => {
      expect(await byId(trx, 3)).toEqual({ name: "three" });
    });
    expect(await prepared(db)).toHaveLength(1);
  });

  it("names at most statementCacheSize texts per connection; the rest run unnamed", async () => {
    const db = await open(2);
    await byId(db, 1);
    await db.selectFrom("t").select("id").where("name", "=", "two").execute();
    const third = await db.selectFrom("t").select("id").where("id", ">", 1).orderBy("id").execute();
    expect(third).toEqual([{ id: 2 }, { id: 3 }]);
    expect(await prepared(db)).toHaveLength(2);
  });

  it("prepares nothing with statementCacheSize 0", async () => {
    const db = await open(0);
    expect(await byId(db, 1)).toEqual({ name: "one" });
    expect(await prepared(db)).toHaveLength(0);
  });

  it("prepares afresh when a migration changed a table under a prepared select *", async () => {
    const db = await open();
    const all = () => db.selectFrom("t").selectAll().where("id", "=", 1).execute();
    expect(await all()).toEqual([{ id: 1, name: "one" }]);
    await sql`alter table t add column note text default 'new'`.execute(db);
    expect(await all()).toEqual([{ id: 1, name: "one", note: "new" }]);
    expect(await all()).toEqual([{ id: 1, name: "one", note: "new" }]);
  });
});
