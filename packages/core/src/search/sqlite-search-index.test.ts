import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../db/open.js";
import type { Database as Schema } from "../db/schema.js";
import { createEngine, type Engine } from "../engine.js";
import { searchIndexOf } from "./search-index-registry.js";

const SQLite = createRequire(import.meta.url)("better-sqlite3") as typeof Database;

const folders: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

type IndexOption = Parameters<typeof openDatabase>[0]["searchIndex"];

/** A migrated engine on a SQLite file (a new one, or `file` again: a second process's engine). */
async function site(searchIndex: IndexOption = { afterRows: 1_000_000 }, file?: string) {
  let path = file;
  if (!path) {
    const folder = mkdtempSync(join(tmpdir(), "quire-search-index-"));
    folders.push(folder);
    path = join(folder, "site.db");
  }
  const db = await openDatabase({ url: path, searchIndex, backgroundCheckpoints: false });
  const engine = createEngine({ db });
  closers.push(() => db.destroy());
  await engine.migrate();
  return { engine, db, file: path };
}

async function found(engine: Engine, q: string): Promise<string[]> {
  const answer = await engine.posts.search({ q, limit: 50 });
  return answer.results.map((result) => result.id).sort();
}

function note(engine: Engine, text: string) {
  return engine.posts.create({ format: "note", bodyMarkdown: text });
}

/** What the index file holds: its marks, and the keys it has indexed. */
function indexFile(file: string): { marks: Record<string, number>; keys: number[] } {
  const db = new SQLite(`${file}-search`, { readonly: true });
  try {
    const marks = Object.fromEntries(
      (db.prepare("select name, value from search_state").raw().all() as [string, number][]).map(
        ([name, value]) => [name, value],
      ),
    );
    const keys = (
      db.prepare("select rowid from post_search_fts order by rowid").raw().all() as [number][]
    ).map(([key]) => key);
    return { marks, keys };
  } finally {
    db.close();
  }
}

async function searchKeys(db: Kysely<Schema>): Promise<number[]> {
  const rows = await sql<{ id: number }>`select id from post_search order by id`.execute(db);
  return rows.rows.map((row) => row.id);
}

// Whatever QUIRE_TEST_DATABASE says: this is how search works on a SQLite file.
describe("SQLite search index beside the file", () => {
  it("finds the same posts by scan, half indexed, and indexed, and drops what was edited away", async () => {
    const { engine, db, file } = await site();
    const index = searchIndexOf(db);
    expect(index).toBeDefined();
    const first = await note(engine, "The aardvark digs at dusk");
    const second = await note(engine, "An aardvark and a badger");
    expect(await found(engine, "aardvark")).toEqual([first.id, second.id].sort());
    await index?.caughtUp();
    expect(indexFile(file).keys).toEqual(await searchKeys(db));
    // Written after the index's mark: found by scan, beside the indexed ones.
    const third = await note(engine, "Aardvark tracks");
    expect(await found(engine, "aardvark")).toEqual([first.id, second.id, third.id].sort());
    // Edited and deleted after indexing: the index still holds the old text under the old key, and
    // must not answer with it.
    await engine.posts.update({ id: first.id, bodyMarkdown: "The pangolin digs at dusk" });
    await engine.posts.delete({ id: second.id });
    expect(await found(engine, "aardvark")).toEqual([third.id]);
    expect(await found(engine, "pangolin")).toEqual([first.id]);
    expect(await found(engine, "badger")).toEqual([]);
    // Once the thread has run again, the index holds exactly the live rows: the sweep dropped the
    // rewritten and deleted ones.
    await index?.caughtUp();
    expect(indexFile(file).keys).toEqual(await searchKeys(db));
    expect(await found(engine, "aardvark")).toEqual([third.id]);
    expect(await found(engine, "pangolin")).toEqual([first.id]);
  });

  it("starts the thread by itself once enough rows wait, and a second engine sees each write at once", async () => {
    const { engine, db, file } = await site({ afterRows: 20, intervalMs: 0 });
    const other = await site({ afterRows: 1_000_000 }, file);
    const index = searchIndexOf(db);
    const ids: string[] = [];
    for (let n = 0; n < 60; n++) {
      ids.push((await note(engine, `Okapi tag${n}z`)).id);
      // The other engine, as another process would: every write is in its next search.
      expect(await found(other.engine, `okapi tag${n}z`)).toEqual([ids[n]]);
    }
    expect(index?.running).toBe(true);
    await index?.caughtUp();
    expect(indexFile(file).marks.indexed_through).toBe(60);
    for (let n = 0; n < 60; n++) expect(await found(other.engine, `tag${n}z okapi`)).toEqual([ids[n]]);
  });

  it("keeps indexing while a script writes without ever letting the event loop turn", async () => {
    // An import that awaits one create after another: better-sqlite3 answers synchronously, so every
    // await resolves as a microtask and the event loop never turns until the loop ends. The thread
    // must still be asked again after its first pass, so the index follows the writes.
    const { engine, file } = await site({ afterRows: 10, intervalMs: 0, batchRows: 20 });
    const deadline = Date.now() + 20_000;
    let written = 0;
    let indexed = 0;
    while (indexed < 200) {
      if (Date.now() > deadline) throw new Error(`the index stopped at ${indexed} of ${written} rows`);
      for (let n = 0; n < 10; n++, written++) await note(engine, `Numbat ${written}`);
      if (existsSync(`${file}-search`)) indexed = indexFile(file).marks.indexed_through ?? 0;
    }
    expect(indexed).toBeLessThanOrEqual(written);
  });

  it("never holds up a write: the engine writes while another connection holds the index file's lock", async () => {
    const { engine, db, file } = await site();
    await note(engine, "Quokka one");
    await searchIndexOf(db)?.caughtUp();
    const holder = new SQLite(`${file}-search`);
    holder.pragma("busy_timeout = 0");
    holder.exec("begin immediate");
    try {
      const post = await note(engine, "Quokka two");
      expect(await found(engine, "quokka")).toHaveLength(2);
      expect(await found(engine, "two")).toEqual([post.id]);
    } finally {
      holder.exec("rollback");
      holder.close();
    }
  });

  it("rebuilds an index file that was lost, and ignores one made for another database", async () => {
    const { engine, db, file } = await site();
    const kept = await note(engine, "Wombat burrow");
    await searchIndexOf(db)?.caughtUp();
    // Another site, indexed too; its index file is put beside this site's database.
    const stranger = await site();
    await note(stranger.engine, "Wombat impostor");
    await note(stranger.engine, "Another impostor");
    await searchIndexOf(stranger.db)?.caughtUp();
    await db.destroy();
    closers.splice(0, 1);
    rmSync(`${file}-search`);
    rmSync(`${file}-search-wal`, { force: true });
    rmSync(`${file}-search-shm`, { force: true });
    copyFileSync(`${stranger.file}-search`, `${file}-search`);
    const reopened = await site({ afterRows: 1_000_000 }, file);
    expect(await found(reopened.engine, "wombat")).toEqual([kept.id]);
    expect(await found(reopened.engine, "impostor")).toEqual([]);
    await searchIndexOf(reopened.db)?.caughtUp();
    expect(indexFile(file).keys).toEqual(await searchKeys(reopened.db));
    expect(await found(reopened.engine, "wombat")).toEqual([kept.id]);
    // Lost altogether: made again, and filled from the rows.
    await reopened.db.destroy();
    closers.splice(-1, 1);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}-search${suffix}`, { force: true });
    const again = await site({ afterRows: 1_000_000 }, file);
    expect(await found(again.engine, "wombat")).toEqual([kept.id]);
    await searchIndexOf(again.db)?.caughtUp();
    expect(existsSync(`${file}-search`)).toBe(true);
    expect(indexFile(file).keys).toEqual(await searchKeys(again.db));
  });

  it("ignores an index ahead of its database (a restored backup) until it is rebuilt", async () => {
    const { engine, db, file } = await site();
    const old = await note(engine, "Numbat before the backup");
    await db.destroy();
    closers.splice(0, 1);
    const backup = `${file}.backup`;
    copyFileSync(file, backup);
    const live = await site({ afterRows: 1_000_000 }, file);
    await note(live.engine, "Numbat after the backup");
    await note(live.engine, "Numbat later still");
    await searchIndexOf(live.db)?.caughtUp();
    await live.db.destroy();
    closers.splice(-1, 1);
    // The backup comes back; the index file, newer, stays. Its keys 2 and 3 name rows the backup
    // never had, and the next posts will be given those keys again.
    copyFileSync(backup, file);
    for (const suffix of ["-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
    const restored = await site({ afterRows: 1_000_000 }, file);
    expect(await found(restored.engine, "numbat")).toEqual([old.id]);
    // Three new posts take keys 2 to 4: past the stale index's mark of 3, so only emptying the
    // index when the database was opened keeps its old texts from answering for them.
    const next = [];
    for (const text of ["Numbat after the restore", "Second since", "Third since"]) {
      next.push((await note(restored.engine, text)).id);
    }
    expect(await searchKeys(restored.db)).toEqual([1, 2, 3, 4]);
    expect(await found(restored.engine, "numbat")).toEqual([old.id, next[0]].sort());
    expect(await found(restored.engine, "later")).toEqual([]);
    expect(await found(restored.engine, "since")).toEqual([next[1], next[2]].sort());
    await searchIndexOf(restored.db)?.caughtUp();
    expect(indexFile(file).keys).toEqual(await searchKeys(restored.db));
    expect(await found(restored.engine, "later")).toEqual([]);
  });

  it("never keeps a process alive: one that indexed and did not close its database still exits", () => {
    const folder = mkdtempSync(join(tmpdir(), "quire-search-exit-"));
    folders.push(folder);
    const source = (path: string) => JSON.stringify(new URL(path, import.meta.url).pathname);
    const script = join(folder, "script.mts");
    writeFileSync(
      script,
      `import { openDatabase } from ${source("../db/open.ts")};
import { createEngine } from ${source("../engine.ts")};
import { searchIndexOf } from ${source("./search-index-registry.ts")};
const db = await openDatabase({ url: ${JSON.stringify(join(folder, "site.db"))}, searchIndex: { afterRows: 1, intervalMs: 0 } });
const engine = createEngine({ db });
await engine.migrate();
for (let n = 0; n < 20; n++) await engine.posts.create({ format: "note", bodyMarkdown: "Echidna " + n });
await searchIndexOf(db)?.caughtUp();
console.log(searchIndexOf(db)?.running ? "indexed" : "no thread");
`,
    );
    const child = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", script], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(child.stdout.trim(), child.stderr).toBe("indexed");
    expect(child.status).toBe(0);
  });

  it("without the index (searchIndex: false) every search scans, and finds the same", async () => {
    const { engine, db, file } = await site(false);
    expect(searchIndexOf(db)).toBeUndefined();
    const post = await note(engine, "Capybara pool");
    expect(await found(engine, "capybara")).toEqual([post.id]);
    expect(existsSync(`${file}-search`)).toBe(false);
  });
});
