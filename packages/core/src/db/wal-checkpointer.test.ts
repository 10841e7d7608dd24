import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import { openDatabase } from "./open.js";

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
