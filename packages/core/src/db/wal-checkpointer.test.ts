import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import { openDatabase } from "./open.js";
import { FileSqliteDialect } from "./sqlite-dialect.js";
import { WalCheckpointer } from "./wal-checkpointer.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A migrated engine on a fresh SQLite file, with the given checkpoint option. */
async function site(backgroundCheckpoints: Parameters<typeof openDatabase>[0]["backgroundCheckpoints"]) {
  const folder = mkdtempSync(join(tmpdir(), "quire-wal-"));
  folders.push(folder);
  const file = join(folder, "site.db");
  const db = await openDatabase({ url: file, backgroundCheckpoints });
  const engine = createEngine({ db });
  await engine.migrate();
  // A clean start: the migrations' pages in the file, an empty WAL, and SQLite's own automatic
  // checkpoint off, so any page that reaches the file from now on was copied by the thread.
  await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  await sql`pragma wal_autocheckpoint = 0`.execute(db);
  return { engine, db, file };
}

/** Writes posts until the WAL has passed `bytes`, then a few more. */
async function writePast(engine: Awaited<ReturnType<typeof site>>["engine"], file: string, bytes: number) {
  const ids: string[] = [];
  for (let n = 0; statSync(`${file}-wal`).size < bytes || n < 60; n++) {
    const post = await engine.posts.create({
      format: "note",
      title: `Post ${n}`,
      bodyMarkdown: "Words ".repeat(300),
    });
    ids.push(post.id);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return ids;
}

/** Waits until `check` holds, or fails after `ms`. */
async function eventually(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Whatever QUIRE_TEST_DATABASE says: this is the SQLite file driver's own behaviour.
describe("WAL checkpoints in a worker thread (SQLite file)", () => {
  it("copies the WAL into the database file from its own thread once the WAL has grown", async () => {
    const { engine, db, file } = await site({ afterBytes: 256 * 1024, intervalMs: 10 });
    const sizeAfterMigrations = statSync(file).size;
    const ids = await writePast(engine, file, 512 * 1024);
    // The engine's connection does not checkpoint (off above, then 16,384 pages once the thread
    // runs, far beyond these writes): what reached the database file was copied by the thread.
    await eventually(() => statSync(file).size > sizeAfterMigrations + 256 * 1024);
    // Everything written reads back, through the engine and after reopening the file.
    const last = ids.length - 1;
    expect((await engine.posts.get({ id: ids[last] as string })).title).toBe(`Post ${last}`);
    await db.destroy();
    const reopened = createEngine({ db: await openDatabase({ url: file, backgroundCheckpoints: false }) });
    for (const n of [0, Math.floor(last / 2), last]) {
      expect((await reopened.posts.get({ id: ids[n] as string })).title).toBe(`Post ${n}`);
    }
    await reopened.context.db.destroy();
  });

  it("leaves a small site's checkpoints to SQLite and starts no thread", async () => {
    const { engine, db, file } = await site({ afterBytes: 64 * 1024 * 1024, intervalMs: 10 });
    const sizeAfterMigrations = statSync(file).size;
    for (let n = 0; n < 20; n++) await engine.posts.create({ format: "note", title: `Post ${n}` });
    expect(statSync(`${file}-wal`).size).toBeLessThan(64 * 1024 * 1024);
    // No thread ran, so nothing copied pages into the file.
    expect(statSync(file).size).toBe(sizeAfterMigrations);
    await db.destroy();
  });

  it("copies nothing with background checkpoints off", async () => {
    // The counterpart of the first test: the same writes without the thread leave the file as it was,
    // so the growth there is the thread's work.
    const { engine, db, file } = await site(false);
    const sizeAfterMigrations = statSync(file).size;
    await writePast(engine, file, 512 * 1024);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(statSync(file).size).toBe(sizeAfterMigrations);
    await db.destroy();
  });
});

describe("a long transaction's commit (SQLite file)", () => {
  /** A bare connection on a fresh WAL file with a scratch table, and a checkpointer for it. */
  function bareFile(afterBytes: number) {
    const folder = mkdtempSync(join(tmpdir(), "quire-wal-long-"));
    folders.push(folder);
    const file = join(folder, "bare.db");
    const main = new SQLite(file);
    main.pragma("journal_mode = WAL");
    main.pragma("synchronous = NORMAL");
    // A small page cache, so a long transaction spills its pages into the WAL before its commit.
    main.pragma("cache_size = 64");
    main.exec("create table scratch (n integer primary key, words text not null)");
    main.pragma("wal_checkpoint(TRUNCATE)");
    const checkpointer = new WalCheckpointer({
      file,
      driverPath: () => createRequire(import.meta.url).resolve("better-sqlite3"),
      main,
      afterBytes,
      intervalMs: 10,
    });
    const insert = main.prepare("insert into scratch (words) values (?)");
    /** A transaction that puts about `bytes` into the WAL, left open; returns the rows it wrote. */
    const writeLong = (bytes: number) => {
      main.exec("begin immediate");
      let rows = 0;
      for (let written = 0; written < bytes; written += 4000, rows++) insert.run("words ".repeat(666));
      return rows;
    };
    return { file, main, checkpointer, writeLong };
  }

  it("leaves the copy into the database file to the thread, and puts SQLite's own checkpoint back", async () => {
    const { file, main, checkpointer, writeLong } = bareFile(256 * 1024);
    const sizeBefore = statSync(file).size;
    const rows = writeLong(8 * 1024 * 1024);
    const done = checkpointer.beforeLongCommit();
    expect(done).toBeDefined();
    expect(checkpointer.running).toBe(true);
    expect(main.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    main.exec("commit");
    // Past 1,000 pages, SQLite would have copied the WAL into the file inside the commit (the
    // counterpart below): nothing has reached the file, and the thread has not been asked yet.
    expect(statSync(file).size).toBe(sizeBefore);
    done?.();
    // Put back as it was before the commit: the distant backstop the thread set when it started.
    expect(main.pragma("wal_autocheckpoint", { simple: true })).toBe(16384);
    await eventually(
      () => checkpointer.checkpoints > 0 && statSync(file).size > sizeBefore + 4 * 1024 * 1024,
    );
    await checkpointer.close();
    main.close();
    // Every row reads back from the file alone, after a clean close.
    const reopened = new SQLite(file);
    expect(reopened.prepare("select count(*) as n from scratch").get()).toEqual({ n: rows });
    reopened.close();
  });

  it("keeps checkpointing while its caller never lets the event loop turn", () => {
    // What the engine does in a script that awaits one write after another: better-sqlite3 is
    // synchronous, so nothing in between gives the event loop a turn. The thread's answers must
    // reach `poke` anyway, or it asks once and never again.
    const { main, checkpointer } = bareFile(64 * 1024);
    const insert = main.prepare("insert into scratch (words) values (?)");
    // Bounded by time and by rows (of 400 bytes: 80 MB at most), so a failing run ends soon.
    const deadline = Date.now() + 20_000;
    let rows = 0;
    while (checkpointer.checkpoints < 5) {
      if (Date.now() > deadline || rows > 200_000) {
        throw new Error(`${checkpointer.checkpoints} checkpoints after ${rows} rows`);
      }
      insert.run("words ".repeat(66));
      rows++;
      checkpointer.poke();
    }
    expect(checkpointer.running).toBe(true);
    return checkpointer.close().then(() => main.close());
  });

  it("is checkpointed by the commit itself without the hook (the counterpart)", async () => {
    const { file, main, checkpointer, writeLong } = bareFile(256 * 1024);
    const sizeBefore = statSync(file).size;
    writeLong(8 * 1024 * 1024);
    main.exec("commit");
    expect(statSync(file).size).toBeGreaterThan(sizeBefore + 4 * 1024 * 1024);
    await checkpointer.close();
    main.close();
  });

  it("does nothing while the WAL is small, or once the checkpointer is closed", async () => {
    const { main, checkpointer, writeLong } = bareFile(64 * 1024 * 1024);
    writeLong(1024 * 1024);
    expect(checkpointer.beforeLongCommit()).toBeUndefined();
    expect(checkpointer.running).toBe(false);
    main.exec("commit");
    await checkpointer.close();
    writeLong(1024 * 1024);
    expect(checkpointer.beforeLongCommit()).toBeUndefined();
    main.exec("commit");
    main.close();
  });

  it("is asked of the helpers by the SQLite dialect for a transaction that ran long, and only then", async () => {
    const folder = mkdtempSync(join(tmpdir(), "quire-wal-dialect-"));
    folders.push(folder);
    const file = join(folder, "site.db");
    const calls: string[] = [];
    const helper = {
      poke() {},
      beforeLongCommit() {
        calls.push("before");
        return () => calls.push("after");
      },
      async close() {},
    };
    // A threshold far above what a one-row transaction takes, however loaded the machine.
    const longAfterMs = 400;
    const db = new Kysely<{ t: { n: number } }>({
      dialect: new FileSqliteDialect({
        database: new SQLite(file),
        file,
        helpers: [helper],
        longTransactionMs: longAfterMs,
      }),
    });
    await sql`create table t (n integer)`.execute(db);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("t").values({ n: 1 }).execute();
    });
    expect(calls).toEqual([]);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("t").values({ n: 2 }).execute();
      await new Promise((resolve) => setTimeout(resolve, longAfterMs + 20));
      expect(calls).toEqual([]);
    });
    expect(calls).toEqual(["before", "after"]);
    // A short one after it asks nothing.
    await db.transaction().execute(async (trx) => {
      await trx.insertInto("t").values({ n: 3 }).execute();
    });
    expect(calls).toEqual(["before", "after"]);
    await db.destroy();
  });
});
