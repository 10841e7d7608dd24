import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine } from "../packages/core/src/engine.js";
import { type BenchOrder, baselineSql, countRootsSql, deepPositionSql } from "./baseline-sql.js";
import { openRawSqlite, type SqliteDatabase } from "./drivers.js";
import {
  addressColumns,
  addressRows,
  generateSite,
  generatorVersion,
  mediaColumns,
  postColumns,
} from "./site-data.js";

/** A benchmark site on SQLite: its file and a raw connection for the baseline. */
export interface SqliteSite {
  file: string;
  raw: SqliteDatabase;
  /** Roots on the public homepage list. */
  listedThreads: number;
  /** The baseline statement of an order, for the first page or a deep page. */
  baseline(order: BenchOrder, cursor?: [number, string]): unknown[];
  /** The keyset position `fromEnd` roots before the end of an order. */
  deepPosition(order: BenchOrder, fromEnd: number): [number, string];
  close(): void;
}

/** Opens the cached site of `size` posts at `file`, building it first when missing or stale. */
export async function openSqliteSite(
  file: string,
  size: number,
  log: (line: string) => void,
): Promise<SqliteSite> {
  if (!isCurrent(file, size)) await buildSqliteSite(file, size, log);
  // Run any migration added since the build (the engine does this at start-up too).
  const engine = createEngine({ db: await openDatabase({ url: file }) });
  await engine.migrate();
  await engine.close();
  const raw = openRawSqlite(file);
  const statements = (order: BenchOrder) => ({
    first: raw.prepare(baselineSql({ dialect: "sqlite", order, cursor: false, param: () => "?" })),
    deep: raw.prepare(baselineSql({ dialect: "sqlite", order, cursor: true, param: () => "?" })),
    position: raw.prepare(deepPositionSql(order, "?")),
  });
  const prepared = { activity: statements("activity"), published: statements("published") };
  const listed = (raw.prepare(countRootsSql).get() as { n: number }).n;
  return {
    file,
    raw,
    listedThreads: listed,
    baseline: (order, cursor) => (cursor ? prepared[order].deep.all(...cursor) : prepared[order].first.all()),
    deepPosition: (order, fromEnd) => {
      const row = prepared[order].position.get(Math.max(0, listed - fromEnd)) as { k: number; id: string };
      return [row.k, row.id];
    },
    close: () => raw.close(),
  };
}

function isCurrent(file: string, size: number): boolean {
  if (!existsSync(file)) return false;
  const raw = openRawSqlite(file);
  try {
    const row = raw.prepare("select value from bench_meta where key = 'build'").get() as
      | { value: string }
      | undefined;
    return row?.value === buildKey(size);
  } catch {
    return false;
  } finally {
    raw.close();
  }
}

function buildKey(size: number): string {
  return `v${generatorVersion}:${size}`;
}

/**
 * Builds the site: migrations through the engine (so the schema and indexes are the real ones),
 * then rows by bulk insert through better-sqlite3 in large transactions.
 */
async function buildSqliteSite(file: string, size: number, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  mkdirSync(dirname(file), { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  const engine = createEngine({ db: await openDatabase({ url: file }) });
  await engine.migrate();
  await engine.close();

  const raw = openRawSqlite(file);
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = OFF");
  const insertPost = raw.prepare(
    `insert into posts (${postColumns.join(", ")}) values (${postColumns.map(() => "?").join(", ")})`,
  );
  const insertMedia = raw.prepare(
    `insert into media (${mediaColumns.join(", ")}) values (${mediaColumns.map(() => "?").join(", ")})`,
  );
  const insertAddress = raw.prepare(
    `insert into site_addresses (${addressColumns.join(", ")}) values (${addressColumns.map(() => "?").join(", ")})`,
  );
  let posts = 0;
  const batch: ReturnType<typeof generateSite> extends Generator<infer T> ? T[] : never = [];
  const flush = raw.transaction(() => {
    for (const thread of batch) {
      for (const post of thread.posts) insertPost.run(...postColumns.map((column) => post[column]));
      for (const media of thread.media) insertMedia.run(...mediaColumns.map((column) => media[column]));
      for (const address of addressRows(thread))
        insertAddress.run(...addressColumns.map((column) => address[column]));
    }
  });
  for (const thread of generateSite(size)) {
    batch.push(thread);
    posts += thread.posts.length;
    if (batch.length >= 2000) {
      flush();
      batch.length = 0;
    }
  }
  flush();
  raw.exec("create table bench_meta (key text primary key, value text not null)");
  raw.prepare("insert into bench_meta (key, value) values ('build', ?)").run(buildKey(size));
  raw.pragma("wal_checkpoint(TRUNCATE)");
  raw.close();
  log(`built ${file}: ${posts} posts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
