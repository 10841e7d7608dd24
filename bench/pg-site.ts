import { performance } from "node:perf_hooks";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine } from "../packages/core/src/engine.js";
import { type BenchOrder, baselineSql, countRootsSql, deepPositionSql } from "./baseline-sql.js";
import { openRawPg, type PgPool } from "./drivers.js";
import {
  addressColumns,
  addressRows,
  generateSite,
  generatorVersion,
  mediaColumns,
  postColumns,
} from "./site-data.js";

/** A benchmark site on PostgreSQL: its schema and a raw pool for the baseline. */
export interface PgSite {
  schema: string;
  listedThreads: number;
  baseline(order: BenchOrder, cursor?: [number, string]): Promise<unknown[]>;
  deepPosition(order: BenchOrder, fromEnd: number): Promise<[number, string]>;
  close(): Promise<void>;
}

/** node-postgres's query by config: a named statement is prepared once per connection. */
interface NamedQuery {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Opens the site of `size` posts in schema `bench_threads_<size>`, building it when missing or stale. */
export async function openPgSite(url: string, size: number, log: (line: string) => void): Promise<PgSite> {
  const schema = `bench_threads_${size}`;
  const raw = openRawPg(url, schema);
  if (!(await isCurrent(raw, size))) await buildPgSite(url, raw, schema, size, log);
  const sqlOf = (order: BenchOrder, cursor: boolean) =>
    baselineSql({ dialect: "postgres", order, cursor, param: (n) => `$${n}` });
  const listed = Number((await raw.query(countRootsSql)).rows[0]?.n);
  return {
    schema,
    listedThreads: listed,
    // Hand-prepared: a named statement, parsed and planned once per connection, as the engine's
    // statements are (db/pg-named.ts).
    baseline: async (order, cursor) =>
      (
        await (raw as unknown as NamedQuery).query({
          name: `baseline_${order}_${cursor ? "deep" : "first"}`,
          text: sqlOf(order, cursor !== undefined),
          values: cursor ?? [],
        })
      ).rows,
    deepPosition: async (order, fromEnd) => {
      const row = (await raw.query(deepPositionSql(order, "$1"), [Math.max(0, listed - fromEnd)]))
        .rows[0] as {
        k: number;
        id: string;
      };
      return [row.k, row.id];
    },
    close: () => raw.end(),
  };
}

/**
 * Marks the site of `size` posts as changed, so that the next {@link openPgSite} builds it again: a
 * benchmark that wrote to it (bench:http's mixed load keeps its posts and replies) calls this, and
 * the next run, on a reused `$QUIRE_BENCH_PG_URL`, measures the site as generated.
 */
export async function markPgSiteChanged(url: string, size: number): Promise<void> {
  const raw = openRawPg(url, `bench_threads_${size}`);
  try {
    await raw.query("delete from bench_meta where key = 'build'");
  } finally {
    await raw.end();
  }
}

async function isCurrent(raw: PgPool, size: number): Promise<boolean> {
  try {
    const { rows } = await raw.query("select value from bench_meta where key = 'build'");
    return rows[0]?.value === `v${generatorVersion}:${size}`;
  } catch {
    return false;
  }
}

async function buildPgSite(
  url: string,
  raw: PgPool,
  schema: string,
  size: number,
  log: (line: string) => void,
) {
  const started = performance.now();
  await raw.query(`drop schema if exists ${schema} cascade`);
  const engine = createEngine({ db: await openDatabase({ url, schema, poolSize: 1 }) });
  await engine.migrate();
  await engine.close();
  const insert = async (table: string, columns: readonly string[], rows: Record<string, unknown>[]) => {
    for (let start = 0; start < rows.length; start += 500) {
      const chunk = rows.slice(start, start + 500);
      const values = chunk.map(
        (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(", ")})`,
      );
      const params = chunk.flatMap((row) => columns.map((column) => row[column]));
      await raw.query(`insert into ${table} (${columns.join(", ")}) values ${values.join(", ")}`, params);
    }
  };
  let posts: Record<string, unknown>[] = [];
  let media: Record<string, unknown>[] = [];
  let addresses: Record<string, unknown>[] = [];
  let count = 0;
  for (const thread of generateSite(size)) {
    posts.push(...thread.posts);
    media.push(...thread.media);
    addresses.push(...addressRows(thread));
    count += thread.posts.length;
    if (posts.length >= 5000) {
      await insert("posts", postColumns, posts);
      await insert("media", mediaColumns, media);
      await insert("site_addresses", addressColumns, addresses);
      posts = [];
      media = [];
      addresses = [];
    }
  }
  await insert("posts", postColumns, posts);
  await insert("media", mediaColumns, media);
  await insert("site_addresses", addressColumns, addresses);
  await raw.query("create table bench_meta (key text primary key, value text not null)");
  await raw.query("insert into bench_meta (key, value) values ('build', $1)", [
    `v${generatorVersion}:${size}`,
  ]);
  // What autovacuum would do shortly after a bulk load: give the planner its statistics.
  await raw.query("analyze");
  log(`built ${schema}: ${count} posts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
