import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { type CachingSqliteDatabase, cachedStatements } from "./statement-cache.js";

// biome-ignore lint/suspicious/noExplicitAny: a scratch table outside the engine's schema
type Scratch = any;

const opened: Kysely<Scratch>[] = [];

async function open(size?: number): Promise<{ db: Kysely<Scratch>; cache: CachingSqliteDatabase }> {
  const cache = cachedStatements(new SQLite(":memory:"), size);
  const db = new Kysely<Scratch>({ dialect: new SqliteDialect({ database: cache }) });
  opened.push(db);
  await sql`create table t (id integer primary key, name text not null)`.execute(db);
  await db
    .insertInto("t")
    .values([
      { id: 1, name: "one" },
      { id: 2, name: "two" },
    ])
    .execute();
  return { db, cache };
}

afterEach(async () => {
  for (const db of opened.splice(0)) await db.destroy();
});

const byId = (db: Kysely<Scratch>, id: number) =>
  db.selectFrom("t").select("name").where("id", "=", id).executeTakeFirst();

describe("the SQLite statement cache", () => {
  it("prepares a SQL text once and answers each run's values", async () => {
    const { db, cache } = await open();
    const before = cache.prepared;
    expect(await byId(db, 1)).toEqual({ name: "one" });
    expect(await byId(db, 2)).toEqual({ name: "two" });
    expect(await byId(db, 3)).toBeUndefined();
    expect(cache.prepared - before).toBe(1);
    // Writes too, in and out of transactions.
    const insert = (id: number) =>
      db
        .insertInto("t")
        .values({ id, name: `n${id}` })
        .execute();
    const prepared = cache.prepared;
    await insert(10);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("t").values({ id: 11, name: "n11" }).execute();
    });
    await insert(12);
    expect(await byId(db, 11)).toEqual({ name: "n11" });
    // The insert once, begin and commit once each; the select was cached.
    expect(cache.prepared - prepared).toBe(3);
  });

  it("keeps at most its bound, dropping the least recently used", async () => {
    const { db, cache } = await open(2);
    const query = (n: number) => sql`select ${sql.lit(n)} as n`.execute(db);
    await query(1);
    await query(2);
    await query(1); // 1 is now the most recent
    await query(3); // drops 2
    expect(cache.size).toBe(2);
    const prepared = cache.prepared;
    await query(1);
    await query(3);
    expect(cache.prepared).toBe(prepared);
    await query(2);
    expect(cache.prepared).toBe(prepared + 1);
  });

  it("prepares every query when its size is 0", async () => {
    const { db, cache } = await open(0);
    const before = cache.prepared;
    await byId(db, 1);
    await byId(db, 1);
    expect(cache.prepared - before).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("sees schema changes: a cached statement re-prepares itself", async () => {
    const { db } = await open();
    const all = () => db.selectFrom("t").selectAll().where("id", "=", 1).execute();
    expect(await all()).toEqual([{ id: 1, name: "one" }]);
    await sql`alter table t add column note text default 'new'`.execute(db);
    expect(await all()).toEqual([{ id: 1, name: "one", note: "new" }]);
    await sql`drop table t`.execute(db);
    await sql`create table t (id integer primary key, size integer)`.execute(db);
    await sql`insert into t values (1, 42)`.execute(db);
    expect(await all()).toEqual([{ id: 1, size: 42 }]);
  });

  it("answers a fresh statement while the cached one is still iterating", () => {
    const cache = cachedStatements(new SQLite(":memory:"));
    try {
      cache.prepare("create table t (id integer)").run([]);
      cache.prepare("insert into t values (1), (2)").run([]);
      const text = "select id from t order by id";
      const first = cache.prepare(text);
      const rows = first.iterate([]);
      expect(rows.next().value).toEqual({ id: 1 });
      const second = cache.prepare(text);
      expect(second).not.toBe(first);
      rows.return?.();
      // Free again, the kept statement answers (from now on building its rows from arrays), not
      // a fresh one; and its rows iterate the same way, busy while they do.
      const prepared = cache.prepared;
      const kept = cache.prepare(text);
      expect(cache.prepared).toBe(prepared);
      const again = kept.iterate([]);
      expect(again.next().value).toEqual({ id: 1 });
      expect(cache.prepare(text)).not.toBe(kept);
      again.return?.();
      expect(cache.prepare(text)).toBe(kept);
      expect([...kept.iterate([])]).toEqual([{ id: 1 }, { id: 2 }]);
    } finally {
      cache.close();
    }
  });
});

describe("the rows of a kept statement", () => {
  /** A cache over a connection, and the same connection's own statements to compare with. */
  function withTable(): { cache: CachingSqliteDatabase; own: SQLite.Database } {
    const own = new SQLite(":memory:");
    own.exec(`create table t (id integer primary key, name text, size real, data blob, note text)`);
    own.prepare("insert into t values (?, ?, ?, ?, ?)").run(1, "one", 1.5, Buffer.from([1, 2, 3]), null);
    own.prepare("insert into t values (?, ?, ?, ?, ?)").run(2, "two", -0.25, null, "n");
    return { cache: cachedStatements(own), own };
  }

  /** Each row's keys in order, with its values: what a caller can tell of an object. */
  const entries = (rows: unknown[]) => rows.map((row) => Object.entries(row as object));

  it("are the objects better-sqlite3 builds: the same keys in the same order, the same values", () => {
    const { cache, own } = withTable();
    try {
      // A name twice (the later column wins, in the first one's place), an index-like name, a
      // name of Object.prototype, every storage class.
      const text = `select id, name, size, data, note, name as id, id as "2", note as "constructor" from t order by id`;
      // Run once, the statement is better-sqlite3's; run again, its rows are built from raw arrays
      // (the wrapper has no `raw` of its own).
      const once = cache.prepare(text);
      expect(typeof (once as { raw?: unknown }).raw).toBe("function");
      const reference = own.prepare(text).all();
      expect(entries(once.all([]))).toEqual(entries(reference));
      const statement = cache.prepare(text);
      expect((statement as { raw?: unknown }).raw).toBeUndefined();
      expect(cache.prepare(text)).toBe(statement);
      const rows = statement.all([]);
      expect(entries(rows)).toEqual(entries(reference));
      expect(rows.map(Object.getPrototypeOf)).toEqual(reference.map(Object.getPrototypeOf));
      expect(entries([...statement.iterate([])])).toEqual(entries(reference));
      // Run again, with a parameter: the same statement, the same shape.
      cache.prepare(`select name, id from t where id = ?`);
      const one = cache.prepare(`select name, id from t where id = ?`);
      expect((one as { raw?: unknown }).raw).toBeUndefined();
      expect(entries(one.all([2]))).toEqual(
        entries(own.prepare(`select name, id from t where id = ?`).all(2)),
      );
    } finally {
      cache.close();
    }
  });

  it("keep their columns across a schema change when the text names them", () => {
    const { cache, own } = withTable();
    try {
      const text = "select name, id from t order by id";
      cache.prepare(text);
      expect((cache.prepare(text) as { raw?: unknown }).raw).toBeUndefined();
      expect(cache.prepare(text).all([])).toEqual([
        { name: "one", id: 1 },
        { name: "two", id: 2 },
      ]);
      own.exec("alter table t add column extra text default 'x'");
      own.exec("drop table t; create table t (name text, other integer, id integer primary key)");
      own.prepare("insert into t values (?, ?, ?)").run("three", 9, 3);
      expect(entries(cache.prepare(text).all([]))).toEqual([
        [
          ["name", "three"],
          ["id", 3],
        ],
      ]);
    } finally {
      cache.close();
    }
  });

  it("stay better-sqlite3's own for a column named __proto__, and for texts with a star", () => {
    const { cache, own } = withTable();
    try {
      const proto = `select name as "__proto__", id from t order by id`;
      cache.prepare(proto);
      const statement = cache.prepare(proto);
      expect(typeof (statement as { raw?: unknown }).raw).toBe("function");
      const rows = statement.all([]);
      const reference = own.prepare(proto).all();
      expect(rows.map((row) => Object.getOwnPropertyNames(row))).toEqual(
        reference.map((row) => Object.getOwnPropertyNames(row)),
      );
      expect(rows.map(Object.getPrototypeOf)).toEqual(reference.map(Object.getPrototypeOf));
      for (const star of ["select * from t", "select count(*) as n from t"]) {
        cache.prepare(star);
        expect(typeof (cache.prepare(star) as { raw?: unknown }).raw).toBe("function");
      }
    } finally {
      cache.close();
    }
  });
});
