/**
 * Thread list benchmark: `pnpm bench:threads [--sizes=10k,100k,1m|none] [--pg=100k|off] [--iterations=500]
 * [--statement-cache=N]`.
 * Builds (or reuses, under bench/.data/) sites of 10k, 100k and 1M posts, then times the public
 * Thread list with include=fold — first page and a deep page (a cursor near the end) — in-process,
 * through the Fetch handler, and as one hand-written SQL statement (the baseline). See bench/README.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { publicCaller } from "../packages/core/src/caller.js";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine, type Engine } from "../packages/core/src/engine.js";
import { encodeCursor } from "../packages/core/src/shared/cursor.js";
import { createHandler } from "../packages/http-adapter/src/index.js";
import { type BenchOrder, cursorOrder } from "./baseline-sql.js";
import { label, parseSize, postgresUrl } from "./bench-args.js";
import { measureTogether, ms, type Timing } from "./measure.js";
import { openPgSite } from "./pg-site.js";
import { readOnlyStorage } from "./read-only-storage.js";
import { benchReport } from "./report.js";
import { openSqliteSite } from "./sqlite-site.js";

const dataDir = new URL("./.data/", import.meta.url).pathname;
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const sizes = args.sizes === "none" ? [] : (args.sizes ?? "10k,100k,1m").split(",").map(parseSize);
const pgSize = args.pg === "off" ? null : parseSize(args.pg ?? "100k");
const iterations = Number(args.iterations ?? 500);
/** Prepared statements kept per connection (`--statement-cache=0` prepares every query anew, on both databases). */
const statementCacheSize =
  args["statement-cache"] === undefined ? undefined : Number(args["statement-cache"]);
const warmup = Math.ceil(iterations / 10);
const orders: BenchOrder[] = ["activity", "published"];
const report = benchReport("bench:threads");
const { log } = report;

/** What one page of a list holds, so pages of different sites can be compared fairly. */
interface PageMix {
  threads: number;
  publishedReplies: number;
  foldReplies: number;
}

/** The three series of one page. */
interface PageResult {
  mix: PageMix;
  baseline: Timing;
  engine: Timing;
  handler: Timing;
  /** This process's CPU time per call (user + system), p50 in ms, and the fastest wall time. */
  cpu: { baseline: CpuTiming; engine: CpuTiming };
}

/** CPU time per call, immune to waiting for a busy machine's cores (SQLite runs in-process). */
interface CpuTiming {
  cpuP50: number;
  wallMin: number;
}

/** One site, one order: the first page and a deep page. */
interface CaseResult {
  database: string;
  posts: number;
  listedThreads: number;
  order: BenchOrder;
  first: PageResult;
  deep: PageResult;
}

/** A built site: its engine, how to read a page by hand, and where a deep page starts. */
interface BenchSite {
  database: string;
  posts: number;
  listedThreads: number;
  engine: Engine;
  baseline(order: BenchOrder, cursor?: [number, string]): unknown[] | Promise<unknown[]>;
  deepPosition(order: BenchOrder): [number, string] | Promise<[number, string]>;
}

async function timeSite(site: BenchSite): Promise<CaseResult[]> {
  const handler = createHandler(site.engine);
  const results: CaseResult[] = [];
  for (const order of orders) {
    const position = await site.deepPosition(order);
    const cursor = encodeCursor({ order: cursorOrder[order], keys: position });
    const query: Record<string, string> = order === "activity" ? {} : { sort: order };
    const url = (extra: Record<string, string>) =>
      `http://localhost/api/public/threads?${new URLSearchParams({ include: "fold", ...query, ...extra })}`;
    const page = async (input: Record<string, string>, keys?: [number, string]): Promise<PageResult> => {
      const read = () => site.engine.publicThreads.list({ fold: true, ...query, ...input }, publicCaller);
      const mix = await checkSameRows(await read(), await site.baseline(order, keys));
      const timings = await measureTogether(
        {
          baseline: () => site.baseline(order, keys),
          engine: read,
          handler: async () => (await handler(new Request(url(input)))).text(),
        },
        { warmup, iterations },
      );
      const cpu = await measureCpu({ baseline: () => site.baseline(order, keys), engine: read });
      return { mix, ...timings, cpu };
    };
    const result: CaseResult = {
      database: site.database,
      posts: site.posts,
      listedThreads: site.listedThreads,
      order,
      first: await page({}),
      deep: await page({ cursor }, position),
    };
    printCase(result);
    results.push(result);
  }
  return results;
}

/**
 * Per call: this process's CPU time (process.cpuUsage, user + system) and the wall time. On a
 * loaded machine wall-time percentiles measure the scheduler as much as the code; CPU time does
 * not (on SQLite every statement runs in this process; on PostgreSQL the server's share is absent,
 * so there only the fastest wall time is comparable).
 */
async function measureCpu(
  fns: Record<"baseline" | "engine", () => unknown>,
): Promise<Record<"baseline" | "engine", CpuTiming>> {
  const names = ["baseline", "engine"] as const;
  const cpu = { baseline: [] as number[], engine: [] as number[] };
  const wall = { baseline: [] as number[], engine: [] as number[] };
  for (let round = 0; round < warmup + iterations; round++) {
    for (const name of names) {
      const start = performance.now();
      const before = process.cpuUsage();
      await fns[name]();
      const used = process.cpuUsage(before);
      if (round < warmup) continue;
      cpu[name].push((used.user + used.system) / 1000);
      wall[name].push(performance.now() - start);
    }
  }
  const p50 = (list: number[]) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
  return {
    baseline: { cpuP50: p50(cpu.baseline), wallMin: Math.min(...wall.baseline) },
    engine: { cpuP50: p50(cpu.engine), wallMin: Math.min(...wall.engine) },
  };
}

/** The engine and the baseline must read the same page, or their ratio means nothing. */
async function checkSameRows(
  page: Awaited<ReturnType<Engine["publicThreads"]["list"]>>,
  rows: unknown[],
): Promise<PageMix> {
  const typed = rows as { id: string; reply_to_id: string | null }[];
  // The baseline's rows come in no particular order (it has no final ORDER BY); compare as sets.
  const baselineRoots = new Set(typed.filter((row) => row.reply_to_id === null).map((row) => row.id));
  const engineRoots = page.threads.map((thread) => thread.id);
  const lookAhead = page.nextCursor === null ? 0 : 1;
  if (
    engineRoots.length === 0 ||
    baselineRoots.size !== engineRoots.length + lookAhead ||
    !engineRoots.every((id) => baselineRoots.has(id))
  ) {
    throw new Error("The engine and the baseline read different pages");
  }
  return {
    threads: page.threads.length,
    publishedReplies: page.threads.reduce((sum, thread) => sum + thread.postCount - 1, 0),
    foldReplies: page.threads.reduce(
      (sum, thread) => sum + (thread.fold ? thread.fold.leading.length + thread.fold.trailing.length : 0),
      0,
    ),
  };
}

function printCase(result: CaseResult): void {
  const { first, deep } = result;
  const line = (name: string, a: Timing, b: Timing, extra: string) =>
    `  ${name.padEnd(18)} ${ms(a.p50).padStart(7)} ${ms(a.p99).padStart(7)}   ${ms(b.p50).padStart(7)} ${ms(b.p99).padStart(7)}   ${extra}`;
  const mix = (m: PageMix) => `${m.publishedReplies} replies, ${m.foldReplies} in folds`;
  log(
    `\n${result.database}, ${label(result.posts)} posts (${result.listedThreads} Threads listed), sort=${result.order}`,
  );
  log(`  pages: first ${mix(first.mix)}; deep ${mix(deep.mix)}`);
  log(
    `  ${"ms".padEnd(18)} ${"first".padStart(7)} ${"p99".padStart(7)}   ${"deep".padStart(7)} ${"p99".padStart(7)}   deep/first p50`,
  );
  log(line("baseline (1 SQL)", first.baseline, deep.baseline, ratio(deep.baseline.p50, first.baseline.p50)));
  log(line("engine in-process", first.engine, deep.engine, ratio(deep.engine.p50, first.engine.p50)));
  log(line("Fetch handler", first.handler, deep.handler, ratio(deep.handler.p50, first.handler.p50)));
  log(
    `  engine/baseline p50: first ${ratio(first.engine.p50, first.baseline.p50)}, deep ${ratio(deep.engine.p50, deep.baseline.p50)}`,
  );
  const cpuLine = (name: string, a: CpuTiming, b: CpuTiming) =>
    `  ${name.padEnd(18)} ${ms(a.cpuP50).padStart(7)} ${ms(a.wallMin).padStart(7)}   ${ms(b.cpuP50).padStart(7)} ${ms(b.wallMin).padStart(7)}`;
  log(
    `  ${"CPU p50 / wall min".padEnd(18)} ${"first".padStart(7)} ${"min".padStart(7)}   ${"deep".padStart(7)} ${"min".padStart(7)}`,
  );
  log(cpuLine("baseline", first.cpu.baseline, deep.cpu.baseline));
  log(cpuLine("engine", first.cpu.engine, deep.cpu.engine));
  log(
    `  engine/baseline CPU p50: first ${ratio(first.cpu.engine.cpuP50, first.cpu.baseline.cpuP50)}, deep ${ratio(deep.cpu.engine.cpuP50, deep.cpu.baseline.cpuP50)}; wall min: first ${ratio(first.cpu.engine.wallMin, first.cpu.baseline.wallMin)}, deep ${ratio(deep.cpu.engine.wallMin, deep.cpu.baseline.wallMin)}`,
  );
}

function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

async function sqliteCase(size: number): Promise<CaseResult[]> {
  const site = await openSqliteSite(`${dataDir}threads-${label(size)}.sqlite`, size, log);
  const engine = createEngine({
    db: await openDatabase({ url: site.file, statementCacheSize }),
    storage: readOnlyStorage,
  });
  try {
    return await timeSite({
      database: "SQLite",
      posts: size,
      listedThreads: site.listedThreads,
      engine,
      baseline: site.baseline,
      deepPosition: (order) => site.deepPosition(order, 30),
    });
  } finally {
    await engine.close();
    site.close();
  }
}

async function pgCase(size: number): Promise<CaseResult[]> {
  const { url, stop } = await postgresUrl();
  try {
    const site = await openPgSite(url, size, log);
    const engine = createEngine({
      db: await openDatabase({ url, schema: site.schema, poolSize: 2, statementCacheSize }),
      storage: readOnlyStorage,
    });
    try {
      return await timeSite({
        database: "PostgreSQL",
        posts: size,
        listedThreads: site.listedThreads,
        engine,
        baseline: site.baseline,
        deepPosition: (order) => site.deepPosition(order, 30),
      });
    } finally {
      await engine.close();
      await site.close();
    }
  } finally {
    await stop();
  }
}

const results: CaseResult[] = [];
log(
  `${iterations} timed rounds (baseline, engine, handler in turn) after ${warmup} warm-up rounds; limit 20, include=fold`,
);
for (const size of sizes) results.push(...(await sqliteCase(size)));
if (pgSize !== null) results.push(...(await pgCase(pgSize)));

for (const order of orders) {
  const sqlite = results
    .filter((r) => r.database === "SQLite" && r.order === order)
    .sort((a, b) => a.posts - b.posts);
  const smallest = sqlite[0];
  const largest = sqlite.at(-1);
  if (!smallest || !largest || smallest === largest) continue;
  const first = ratio(largest.first.engine.p50, smallest.first.engine.p50);
  const deep = ratio(largest.deep.engine.p50, smallest.deep.engine.p50);
  log(
    `\nSQLite sort=${order}, ${label(largest.posts)} vs ${label(smallest.posts)} (engine p50): first ${first}, deep ${deep}`,
  );
}
mkdirSync(dataDir, { recursive: true });
writeFileSync(`${dataDir}threads-results.json`, `${JSON.stringify(results, null, 2)}\n`);
log("\nFigures saved to bench/.data/threads-results.json");
report.save();
