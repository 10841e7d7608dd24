import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import { openDatabase } from "./open.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * An engine on a fresh SQLite file, and a connection of another "process" (opened by hand, so the
 * engine's in-process turns do not see it) holding the file's write lock.
 */
async function engineBesideAWriter(busyTimeoutMs: number) {
  const folder = mkdtempSync(join(tmpdir(), "quire-lock-wait-"));
  cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  const file = join(folder, "site.db");
  const db = await openDatabase({ url: file, busyTimeoutMs });
  cleanups.push(() => db.destroy());
  const engine = createEngine({ db });
  await engine.migrate();
  const other = new SQLite(file);
  cleanups.push(() => {
    if (other.inTransaction) other.exec("rollback");
    other.close();
  });
  other.exec("begin immediate");
  return { db, engine, other };
}

/** Counts the turns of the event loop (timers that ran) until stopped. */
function countTurns() {
  let turns = 0;
  const timer = setInterval(() => turns++, 1);
  return {
    stop: () => {
      clearInterval(timer);
      return turns;
    },
  };
}

// Whatever QUIRE_TEST_DATABASE says: this is how a SQLite file is written by several processes.
describe("a SQLite write waiting for another process's write lock", () => {
  it("waits on timers: the event loop goes on, and the write lands once the lock is free", async () => {
    const { engine, other } = await engineBesideAWriter(5000);
    const turns = countTurns();
    // The other writer lets go from a timer of this thread: were the wait a sleep in SQLite's busy
    // handler on the event loop, that timer could not run before the 5 s timeout, and the create
    // would fail with CONFLICT.
    setTimeout(() => other.open && other.exec("commit"), 100);
    const post = await engine.posts.create({ format: "note", title: "After the other writer" });
    expect(turns.stop()).toBeGreaterThan(0);
    expect((await engine.posts.get({ id: post.id })).title).toBe("After the other writer");
  });

  it("waits on timers for a write outside a transaction too", async () => {
    const { db, other } = await engineBesideAWriter(5000);
    setTimeout(() => other.open && other.exec("commit"), 100);
    await sql`create table lock_wait_probe (x integer)`.execute(db);
    await sql`insert into lock_wait_probe (x) values (1)`.execute(db);
    const { rows } = await sql<{ x: number }>`select x from lock_wait_probe`.execute(db);
    expect(rows).toEqual([{ x: 1 }]);
  });

  it("gives up after busyTimeoutMs with CONFLICT, writes nothing, and the next write lands", async () => {
    const { engine, other } = await engineBesideAWriter(150);
    const turns = countTurns();
    await expect(engine.posts.create({ format: "note", title: "Too late" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect(turns.stop()).toBeGreaterThan(0);
    other.exec("commit");
    expect((await engine.posts.list({})).posts).toEqual([]);
    await engine.posts.create({ format: "note", title: "In time" });
    expect((await engine.posts.list({})).posts.map((post) => post.title)).toEqual(["In time"]);
  });

  it("waits on timers again after a transaction that was rolled back", async () => {
    const { db, engine, other } = await engineBesideAWriter(5000);
    other.exec("commit");
    await expect(
      db.transaction().execute(async () => {
        throw new Error("undone");
      }),
    ).rejects.toThrow("undone");
    other.exec("begin immediate");
    setTimeout(() => other.open && other.exec("commit"), 100);
    const post = await engine.posts.create({ format: "note", title: "After a rollback" });
    expect((await engine.posts.get({ id: post.id })).title).toBe("After a rollback");
  });

  it("still streams a query's rows, and lets a stream stop early", async () => {
    const { db, engine, other } = await engineBesideAWriter(5000);
    other.exec("commit");
    for (const title of ["One", "Two", "Three"]) await engine.posts.create({ format: "note", title });
    const titles: (string | null)[] = [];
    for await (const row of db.selectFrom("posts").select("title").orderBy("title").stream())
      titles.push(row.title);
    expect(titles).toEqual(["One", "Three", "Two"]);
    for await (const row of db.selectFrom("posts").select("title").orderBy("title").stream()) {
      expect(row.title).toBe("One");
      break;
    }
    // The connection is free again after the early stop.
    expect((await engine.posts.list({})).posts).toHaveLength(3);
  });
});
