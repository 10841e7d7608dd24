/**
 * Thread figures under concurrent replies:
 * `pnpm bench:thread-figures [--replies=400] [--sizes=10,1000,10000]`.
 *
 * Each reply is one transaction that inserts a post and keeps its Thread's figures on the root row,
 * by one of three strategies (the SQL the engine runs, by hand, on a raw connection):
 * - `racy`: insert, aggregate the Thread, write the figures (the engine before the fix: loses
 *   updates under READ COMMITTED);
 * - `lock`: lock the root row (`FOR UPDATE`) first, then the same (the engine now);
 * - `atomic`: insert, then `count = count + 1`, `greatest(...)` on the root (exact for inserts only:
 *   a delete or an unpublish still needs the aggregate, under the lock).
 * Writers: 1, then 8 into one Thread, then 8 each into its own Thread. Thread sizes are the replies
 * a Thread already has. Then the whole engine (`engine.posts.create`) on PostgreSQL and SQLite.
 * Figures in bench/README.md § Thread figures.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine, type Engine } from "../packages/core/src/engine.js";
import { fixedClock } from "../packages/core/src/shared/time.js";
import { postgresUrl } from "./bench-args.js";
import { benchReport } from "./report.js";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const report = benchReport("bench:thread-figures");
const { log } = report;
const replies = Number(args.replies ?? 400);
const sizes = (args.sizes ?? "10,1000,10000").split(",").map(Number);
const writers = 8;
const t0 = 1_700_000_000;

type Strategy = "racy" | "lock" | "atomic";
const strategies: Strategy[] = ["racy", "lock", "atomic"];

interface PgClient {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  release(): void;
}
interface PgPool {
  connect(): Promise<PgClient>;
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: "error", listener: (err: Error) => void): unknown;
}

const requireFromCore = createRequire(new URL("../packages/core/package.json", import.meta.url));

function openPool(url: string, schema: string): PgPool {
  const pg = requireFromCore("pg") as { Pool: new (options: Record<string, unknown>) => PgPool };
  const pool = new pg.Pool({ connectionString: url, max: writers + 2, options: `-c search_path=${schema}` });
  pool.on("error", () => {});
  return pool;
}

const aggregate = `select
  coalesce(sum(case when status = 'published' then 1 else 0 end), 0) as post_count,
  coalesce(sum(case when status = 'published' and id <> thread_id then 1 else 0 end), 0) as reply_count,
  max(case when status = 'published' and quiet_reply = 0 then published_at end) as activity,
  max(case when status = 'published' then published_at end) as updated
  from posts where thread_id = $1`;

const insertReply = `insert into posts (id, format, status, visibility, slug, display_title, reply_to_id,
  thread_id, quiet_reply, published_at, created_at, updated_at, last_activity_at, thread_updated_at)
  values ($1, 'note', 'published', 'public', $1, 'reply', $2, $2, 0, $3, $3, $3, $3, $3)`;

/** One reply in one transaction, keeping the figures by `strategy`. */
async function reply(client: PgClient, strategy: Strategy, root: string, id: string, at: number) {
  await client.query("begin");
  try {
    if (strategy === "lock") await client.query("select id from posts where id = $1 for update", [root]);
    await client.query(insertReply, [id, root, at]);
    if (strategy === "atomic") {
      await client.query(
        `update posts set thread_post_count = thread_post_count + 1, thread_reply_count = thread_reply_count + 1,
         last_activity_at = greatest(last_activity_at, $2), thread_updated_at = greatest(thread_updated_at, $2)
         where id = $1`,
        [root, at],
      );
    } else {
      const figures = (await client.query(aggregate, [root])).rows[0] as Record<string, number>;
      await client.query(
        `update posts set thread_post_count = $2, thread_reply_count = $3, last_activity_at = $4,
         thread_updated_at = $5 where id = $1`,
        [root, figures.post_count, figures.reply_count, figures.activity, figures.updated],
      );
    }
    await client.query("commit");
  } catch (err) {
    await client.query("rollback");
    throw err;
  }
}

/** Roots `root-<size>-<n>` (n = 0 … writers-1), each with `size` published replies and exact figures. */
async function seed(pool: PgPool) {
  for (const size of sizes) {
    for (let n = 0; n < writers; n++) {
      const root = `root-${size}-${n}`;
      await pool.query(
        `insert into posts (id, format, status, visibility, slug, display_title, thread_id, published_at,
         created_at, updated_at, last_activity_at, thread_updated_at, thread_post_count, thread_reply_count)
         values ($1, 'note', 'published', 'public', $1, 'root', $1, $2, $2, $2, $3, $3, $4, $5)`,
        [root, t0, t0 + size, size + 1, size],
      );
      await pool.query(
        `insert into posts (id, format, status, visibility, slug, display_title, reply_to_id, thread_id,
         quiet_reply, published_at, created_at, updated_at, last_activity_at, thread_updated_at)
         select $1 || '-r' || g, 'note', 'published', 'public', $1 || '-r' || g, 'reply', $1, $1,
           0, $2 + g, $2 + g, $2 + g, $2 + g, $2 + g
         from generate_series(1, $3) as g`,
        [root, t0, size],
      );
    }
  }
  await pool.query("analyze posts");
}

function rootsOf(size: number): string[] {
  return Array.from({ length: writers }, (_, n) => `root-${size}-${n}`);
}

interface CaseResult {
  size: number;
  mode: string;
  strategy: Strategy;
  perSecond: number;
  p50: number;
  p99: number;
  lost: number;
}

async function runCase(pool: PgPool, size: number, mode: "1" | "8-one" | "8-own", strategy: Strategy) {
  const count = mode === "1" ? 1 : writers;
  const latencies: number[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: count }, async (_, w) => {
      const client = await pool.connect();
      const root = `root-${size}-${mode === "8-own" ? w : 0}`;
      try {
        for (let i = w; i < replies; i += count) {
          const begin = performance.now();
          await reply(client, strategy, root, `new-${strategy}-${mode}-${size}-${i}`, t0 + size + 1 + next++);
          latencies.push(performance.now() - begin);
        }
      } finally {
        client.release();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const { rows } = await pool.query(
    `select coalesce(sum(r.thread_post_count - (select count(*) from posts p where p.thread_id = r.id)), 0) as lost
     from posts r where r.id = any($1)`,
    [rootsOf(size)],
  );
  // Back to the seeded state for the next case.
  await pool.query("delete from posts where id like 'new-%'");
  await pool.query(
    "update posts set thread_post_count = $2 + 1, thread_reply_count = $2, last_activity_at = $3, thread_updated_at = $3 where id = any($1)",
    [rootsOf(size), size, t0 + size],
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    size,
    mode,
    strategy,
    perSecond: replies / seconds,
    p50: at(0.5),
    p99: at(0.99),
    lost: -Number(rows[0]?.lost ?? 0),
  } satisfies CaseResult;
}

/** The whole engine: `replies` replies through `engine.posts.create`, by 1 or 8 writers. */
async function engineCase(engine: Engine, roots: string[], mode: "1" | "8-one" | "8-own") {
  const count = mode === "1" ? 1 : writers;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async (_, w) => {
      for (let i = w; i < replies; i += count) {
        const root = roots[mode === "8-own" ? w : 0] as string;
        await engine.posts.create({ format: "note", replyToId: root, bodyMarkdown: `reply ${i}` });
      }
    }),
  );
  return replies / ((performance.now() - started) / 1000);
}

async function engineSeries(url: string, schema?: string) {
  const db = await openDatabase({ url, schema, poolSize: writers + 2 });
  const engine = createEngine({ db, clock: fixedClock(t0) });
  await engine.migrate();
  const roots: string[] = [];
  for (let n = 0; n < writers; n++)
    roots.push((await engine.posts.create({ format: "note", title: `Root ${n}` })).id);
  const result: Record<string, number> = {};
  for (const mode of ["1", "8-one", "8-own"] as const) result[mode] = await engineCase(engine, roots, mode);
  await engine.close();
  return result;
}

const { url, stop } = await postgresUrl();
try {
  log(`${replies} replies per case`);
  const schema = "bench_figures";
  const admin = openPool(url, "public");
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
  const setup = await openDatabase({ url, schema, poolSize: 2 });
  await createEngine({ db: setup }).migrate();
  await setup.destroy();
  const pool = openPool(url, schema);
  await seed(pool);
  log("\nPostgreSQL, SQL by hand: replies/s, p50 / p99 ms per reply, figures lost");
  log("| replies in the Thread | writers | racy | lock (chosen) | atomic |");
  log("|---|---|---|---|---|");
  for (const size of sizes) {
    for (const mode of ["1", "8-one", "8-own"] as const) {
      const cells: string[] = [];
      for (const strategy of strategies) {
        const r = await runCase(pool, size, mode, strategy);
        cells.push(
          `${r.perSecond.toFixed(0)}/s, ${r.p50.toFixed(2)} / ${r.p99.toFixed(1)}${r.lost ? `, **${r.lost} lost**` : ""}`,
        );
      }
      const writersLabel = mode === "1" ? "1" : mode === "8-one" ? "8, one Thread" : "8, own Threads";
      log(`| ${size} | ${writersLabel} | ${cells.join(" | ")} |`);
    }
  }
  await pool.end();

  log("\nWhole engine (engine.posts.create of a reply), replies/s");
  const dir = mkdtempSync(join(tmpdir(), "quire-bench-figures-"));
  try {
    const pg = await engineSeries(url, "bench_figures_engine");
    const sqlite = await engineSeries(join(dir, "figures.db"));
    log("| database | 1 writer | 8, one Thread | 8, own Threads |");
    log("|---|---|---|---|");
    for (const [name, r] of [
      ["PostgreSQL", pg],
      ["SQLite", sqlite],
    ] as const) {
      log(`| ${name} | ${r["1"]?.toFixed(0)} | ${r["8-one"]?.toFixed(0)} | ${r["8-own"]?.toFixed(0)} |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    const cleanup = openPool(url, "public");
    await cleanup.query("drop schema if exists bench_figures cascade");
    await cleanup.query("drop schema if exists bench_figures_engine cascade");
    await cleanup.end();
  }
} finally {
  await stop();
}
report.save();
