/**
 * HTTP benchmark: `pnpm bench:http [--posts=100k|1m] [--pg=100k|off] [--sqlite=on|off]
 * [--workers=1,2] [--cache=on,off] [--duration=10] [--rounds=6] [--warmup=3] [--connections=8]
 * [--mixed=on|off]`.
 *
 * Starts the reference server (examples/server, a child process per case) on a copy of a bench
 * site (SQLite, built or reused under bench/.data/ by bench/sqlite-site.ts; PostgreSQL by
 * bench/pg-site.ts), and a bare node:http server sending the same first-page bytes from memory
 * (bench/http-bare-server.ts), then drives each with `--connections` keep-alive clients:
 * - reads of the public Thread list's first page with include=fold, against the bare server (the two
 *   take turns in `--rounds` slices of the `--duration`, so the shared machine's load hits both alike);
 * - a write-then-read check: a post created through the API is on top of the very next public read
 *   on every connection (so from every worker); a stale answer fails the benchmark;
 * - a mixed load: 90 % public reads of several kinds, 10 % creates and replies.
 * See bench/README.md § HTTP.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { label, parseSize, postgresUrl } from "./bench-args.js";
import { markPgSiteChanged, openPgSite } from "./pg-site.js";
import { benchReport } from "./report.js";
import { openSqliteSite } from "./sqlite-site.js";

const dataDir = new URL("./.data/", import.meta.url).pathname;
const serverDir = new URL("../examples/server/", import.meta.url).pathname;
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const sqliteSize = args.sqlite === "off" ? null : parseSize(args.posts ?? "100k");
const pgSize = args.pg === "off" ? null : parseSize(args.pg ?? "100k");
const workerCounts: number[] = (args.workers ?? "1,2").split(",").map(Number);
const cacheModes = (args.cache ?? "on,off").split(",") as ("on" | "off")[];
const durationMs = Number(args.duration ?? 10) * 1000;
const warmupMs = Number(args.warmup ?? 3) * 1000;
const connections = Number(args.connections ?? 8);
const rounds = Number(args.rounds ?? 6);
const mixed = args.mixed !== "off";
const devToken = "bench-http-dev-token";
const firstPage = "/api/public/threads?include=fold";
const report = benchReport("bench:http");
const { log } = report;

// ---------------------------------------------------------------------------------------------
// Processes

interface Running {
  origin: string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Spawns a process and waits for `pattern` on its stdout (its first group is the port or URL). */
async function spawnUntil(
  command: string[],
  options: { cwd: string; env: Record<string, string> },
  pattern: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray; stderr: () => string }> {
  const child = spawn(process.execPath, command, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-20_000);
  });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${out}\n${err}`)), 120_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const found = pattern.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${out}\n${err}`));
    });
  });
  child.stdout?.resume();
  return { child, match, stderr: () => err };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
}

async function startQuire(databaseUrl: string, workers: number, cache: "on" | "off"): Promise<Running> {
  const { child, match, stderr } = await spawnUntil(
    ["--conditions=source", "--import", "tsx", "src/main.ts"],
    {
      cwd: serverDir,
      env: {
        HOST: "127.0.0.1",
        PORT: "0",
        DATA_DIR: `${dataDir}http-server`,
        DATABASE_URL: databaseUrl,
        WORKERS: String(workers),
        DEV_API_TOKEN: devToken,
        RATE_LIMIT_ENABLED: "false",
        RESPONSE_CACHE: cache,
        NODE_ENV: "production",
      },
    },
    /Quire listening on (http:\/\/[^\s/]+)/,
  );
  return { origin: match[1] as string, stderr, stop: () => stopChild(child) };
}

async function startBare(body: Buffer, contentType: string, workers: number): Promise<Running> {
  const bodyFile = `${dataDir}http-first-page.body`;
  writeFileSync(bodyFile, body);
  const { child, match, stderr } = await spawnUntil(
    ["--import", "tsx", new URL("./http-bare-server.ts", import.meta.url).pathname],
    { cwd: serverDir, env: { BODY_FILE: bodyFile, CONTENT_TYPE: contentType, WORKERS: String(workers) } },
    /listening on (\d+)/,
  );
  return { origin: `http://127.0.0.1:${match[1]}`, stderr, stop: () => stopChild(child) };
}

// ---------------------------------------------------------------------------------------------
// Load

/** One request of a load: its path, method and body, and whether it is a write. */
interface Call {
  kind: string;
  write: boolean;
  method: "GET" | "POST";
  path: string;
  body?: string;
}

interface Figures {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
}

interface LoadResult {
  seconds: number;
  all: Figures;
  reads: Figures;
  writes: Figures | null;
  /** Answers that were not 2xx, by status. */
  failures: Record<string, number>;
  /** `Quire-Cache` header values seen on reads. */
  cache: Record<string, number>;
}

function figures(samples: number[], seconds: number): Figures {
  const sorted = Float64Array.from(samples).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { requests: sorted.length, perSecond: sorted.length / seconds, p50: at(0.5), p99: at(0.99) };
}

/** A load on one server: `connections` clients, run in slices so two servers can take turns. */
interface Load {
  /** Runs the clients for `ms` (then lets the requests in flight finish); counted when `measured`. */
  slice(ms: number, measured: boolean): Promise<void>;
  result(): LoadResult;
  close(): Promise<void>;
}

/**
 * `connections` clients on one keep-alive connection each, every client sending its next request
 * when the last answer's body has been read.
 */
function createLoad(origin: string, next: (client: number) => Call): Load {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const reads: number[] = [];
  const writes: number[] = [];
  const failures: Record<string, number> = {};
  const cache: Record<string, number> = {};
  let seconds = 0;
  const client = async (index: number, until: number, measured: boolean) => {
    while (performance.now() < until) {
      const call = next(index);
      const started = performance.now();
      const response = await pool.request({
        method: call.method,
        path: call.path,
        body: call.body,
        headers: call.write
          ? { authorization: `Bearer ${devToken}`, "content-type": "application/json" }
          : undefined,
      });
      for await (const _ of response.body) {
        // read every byte, as a client would
      }
      const elapsed = performance.now() - started;
      if (!measured) continue;
      (call.write ? writes : reads).push(elapsed);
      if (response.statusCode >= 300) {
        const key = `${call.kind} ${response.statusCode}`;
        failures[key] = (failures[key] ?? 0) + 1;
      }
      const hit = response.headers["quire-cache"];
      if (!call.write && typeof hit === "string") cache[hit] = (cache[hit] ?? 0) + 1;
    }
  };
  return {
    async slice(ms, measured) {
      const started = performance.now();
      await Promise.all(
        Array.from({ length: connections }, (_, index) => client(index, started + ms, measured)),
      );
      if (measured) seconds += (performance.now() - started) / 1000;
    },
    result: () => ({
      seconds,
      all: figures([...reads, ...writes], seconds),
      reads: figures(reads, seconds),
      writes: writes.length > 0 ? figures(writes, seconds) : null,
      failures,
      cache,
    }),
    close: () => pool.close(),
  };
}

/** One load on one server: a warm-up, then `durationMs` measured. */
async function drive(origin: string, next: (client: number) => Call): Promise<LoadResult> {
  const load = createLoad(origin, next);
  await load.slice(warmupMs, false);
  await load.slice(durationMs, true);
  await load.close();
  return load.result();
}

/**
 * The same first-page load on two servers taking turns in `rounds` slices, so that a change in
 * the machine's load (it is shared) hits both alike and their ratio holds.
 */
async function driveInTurns(
  a: string,
  b: string,
  next: (client: number) => Call,
): Promise<[LoadResult, LoadResult]> {
  const loads = [createLoad(a, next), createLoad(b, next)] as const;
  for (const load of loads) await load.slice(warmupMs, false);
  for (let round = 0; round < rounds; round++) {
    for (const load of round % 2 === 0 ? loads : [...loads].reverse())
      await load.slice(durationMs / rounds, true);
  }
  for (const load of loads) await load.close();
  return [loads[0].result(), loads[1].result()];
}

/** A small deterministic generator, so every case sends the same mix. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

interface ThreadPage {
  threads: { id: string; root: { slug: string }; fold?: { trailing: { slug: string }[] } }[];
  nextCursor: string | null;
}

async function getJson<T>(origin: string, path: string): Promise<T> {
  const response = await fetch(`${origin}${path}`);
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  return (await response.json()) as T;
}

/** What the mixed load reads: Thread and post slugs, Thread ids to reply to, and list cursors. */
interface Sample {
  threadSlugs: string[];
  postSlugs: string[];
  threadIds: string[];
  cursors: string[];
}

async function sampleSite(origin: string): Promise<Sample> {
  const sample: Sample = { threadSlugs: [], postSlugs: [], threadIds: [], cursors: [] };
  let path = `${firstPage}&sort=published`;
  for (let page = 0; page < 20; page++) {
    const body = await getJson<ThreadPage>(origin, path);
    for (const thread of body.threads) {
      sample.threadSlugs.push(thread.root.slug);
      sample.threadIds.push(thread.id);
      sample.postSlugs.push(thread.root.slug, ...(thread.fold?.trailing ?? []).map((post) => post.slug));
    }
    if (!body.nextCursor) break;
    sample.cursors.push(body.nextCursor);
    // Jump ahead: pages spread over the first few thousand Threads.
    path = `${firstPage}&sort=published&cursor=${encodeURIComponent(body.nextCursor)}&limit=100`;
  }
  return sample;
}

/** 90 % public reads of five kinds, 10 % writes (new Threads and replies). */
function mixedCalls(sample: Sample, seed: number): (client: number) => Call {
  const generators: (() => number)[] = [];
  let written = 0;
  const pick = <T>(rand: () => number, list: T[]) => list[Math.floor(rand() * list.length)] as T;
  return (client) => {
    generators[client] ??= random(seed + client);
    const rand = generators[client] as () => number;
    const roll = rand();
    if (roll < 0.35) return { kind: "list first page", write: false, method: "GET", path: firstPage };
    if (roll < 0.45)
      return { kind: "list by published", write: false, method: "GET", path: `${firstPage}&sort=published` };
    if (roll < 0.6) {
      const cursor = encodeURIComponent(pick(rand, sample.cursors));
      return {
        kind: "list later page",
        write: false,
        method: "GET",
        path: `${firstPage}&sort=published&cursor=${cursor}`,
      };
    }
    if (roll < 0.75) {
      const slug = encodeURIComponent(pick(rand, sample.threadSlugs));
      return { kind: "thread", write: false, method: "GET", path: `/api/public/threads/${slug}` };
    }
    if (roll < 0.9) {
      const slug = encodeURIComponent(pick(rand, sample.postSlugs));
      return { kind: "post", write: false, method: "GET", path: `/api/public/posts/${slug}` };
    }
    written++;
    const body: Record<string, unknown> = {
      format: "note",
      bodyMarkdown: `Benchmark write ${written}: ${"words of a short post ".repeat(20)}`,
    };
    if (roll < 0.95)
      return { kind: "create", write: true, method: "POST", path: "/api/posts", body: JSON.stringify(body) };
    body.replyToId = pick(rand, sample.threadIds);
    return { kind: "reply", write: true, method: "POST", path: "/api/posts", body: JSON.stringify(body) };
  };
}

/**
 * Creates a post through the API, then reads the public first page once on each of `connections`
 * fresh keep-alive connections (node:cluster hands them to every worker in turn): each read must
 * show the new post's Thread (after the pinned ones). Throws on a stale answer. Each post is
 * deleted once checked, so the first page is the site's own again: every case measures the same
 * page, whichever cases ran before it (and, on a reused PostgreSQL schema, whichever runs).
 */
async function writeThenRead(origin: string, rounds: number): Promise<number> {
  let reads = 0;
  for (let round = 0; round < rounds; round++) {
    const created = await fetch(`${origin}/api/posts`, {
      method: "POST",
      headers: { authorization: `Bearer ${devToken}`, "content-type": "application/json" },
      body: JSON.stringify({ format: "note", bodyMarkdown: `Write-then-read check ${round}` }),
    });
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };
    const pool = new Pool(origin, { connections, pipelining: 1 });
    const tops = await Promise.all(
      Array.from({ length: connections }, async () => {
        const response = await pool.request({ method: "GET", path: firstPage });
        const page = (await response.body.json()) as ThreadPage;
        return page.threads.map((thread) => thread.id);
      }),
    );
    await pool.close();
    reads += tops.length;
    // Pinned Threads come first; the new Thread is the newest activity after them.
    const stale = tops.filter((ids) => !ids.includes(id)).length;
    if (stale > 0) throw new Error(`STALE: ${stale} of ${tops.length} reads after a create did not show it`);
    const deleted = await fetch(`${origin}/api/posts/${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${devToken}` },
    });
    if (deleted.status !== 200) throw new Error(`delete answered ${deleted.status}: ${await deleted.text()}`);
  }
  return reads;
}

// ---------------------------------------------------------------------------------------------
// Cases

interface CaseResult {
  database: string;
  posts: number;
  server: string;
  workers: number;
  /** RESPONSE_CACHE as asked, and what the answers' Quire-Cache headers showed when they differ. */
  cache: string;
  load: "first page" | "mixed 90/10";
  bodyBytes?: number;
  result: LoadResult;
  freshReads?: number;
}

const results: CaseResult[] = [];

function print(result: CaseResult): void {
  const f = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
  const { all, reads, writes } = result.result;
  const failures = Object.entries(result.result.failures)
    .map(([key, count]) => `${key}: ${count}`)
    .join(", ");
  const cache = Object.entries(result.result.cache)
    .map(([key, count]) => `${key} ${count}`)
    .join(", ");
  log(
    `  ${result.server.padEnd(6)} ${String(result.workers).padStart(2)}w cache ${result.cache.padEnd(3)} ${result.load.padEnd(11)}` +
      ` ${all.perSecond.toFixed(0).padStart(6)} req/s  p50 ${f(all.p50).padStart(6)}  p99 ${f(all.p99).padStart(6)} ms` +
      (writes
        ? `  | reads ${reads.perSecond.toFixed(0)}/s p50 ${f(reads.p50)} p99 ${f(reads.p99)} | writes ${writes.perSecond.toFixed(0)}/s p50 ${f(writes.p50)} p99 ${f(writes.p99)}`
        : "") +
      (failures ? `  FAILURES ${failures}` : "") +
      (cache ? `  [Quire-Cache: ${cache}]` : ""),
  );
  results.push(result);
}

async function runDatabase(database: string, posts: number, databaseUrl: string): Promise<void> {
  log(`\n${database}, ${label(posts)} posts`);
  const cases: ServerCase[] = cacheModes.flatMap((cache) =>
    workerCounts.map((workers) => ({ database, posts, workers, cache })),
  );
  // Every first-page case before any mixed load: the mixed load's writes stay (its replies also
  // move Threads up), and would change the page the later cases measure.
  for (const serverCase of cases) await withServer(databaseUrl, serverCase, firstPageCase);
  if (mixed) for (const serverCase of cases) await withServer(databaseUrl, serverCase, mixedCase);
  log("  write-then-read: every read after a create showed it");
}

/** One reference server to measure: its database, worker count and response cache. */
interface ServerCase {
  database: string;
  posts: number;
  workers: number;
  cache: "on" | "off";
}

/** Runs `run` against a reference server started for it, printing the server's stderr if it fails. */
async function withServer(
  databaseUrl: string,
  serverCase: ServerCase,
  run: (server: Running, serverCase: ServerCase) => Promise<void>,
): Promise<void> {
  const server = await startQuire(databaseUrl, serverCase.workers, serverCase.cache);
  try {
    await run(server, serverCase);
  } catch (error) {
    log(`  server stderr (tail):\n${server.stderr().slice(-3000)}`);
    throw error;
  } finally {
    await server.stop();
  }
}

/** What the server did, not only what was asked: a server that does not read RESPONSE_CACHE caches anyway. */
function cacheLabel(asked: "on" | "off", result: LoadResult): string {
  const observed = (result.cache.hit ?? 0) > 0 ? "on" : "off";
  return observed === asked ? asked : `${asked}, but ${observed}`;
}

/** The write-then-read check, then the first page against the bare server sending the same bytes. */
async function firstPageCase(
  server: Running,
  { database, posts, workers, cache }: ServerCase,
): Promise<void> {
  const freshReads = await writeThenRead(server.origin, 5);
  // The bare server sends the bytes this server now sends for the page.
  const first = await fetch(`${server.origin}${firstPage}`);
  const body = Buffer.from(await first.arrayBuffer());
  const bare = await startBare(body, first.headers.get("content-type") ?? "application/json", workers);
  const firstPageCall = (): Call => ({ kind: "list", write: false, method: "GET", path: firstPage });
  let read: LoadResult;
  let reference: LoadResult;
  try {
    [read, reference] = await driveInTurns(server.origin, bare.origin, firstPageCall);
  } finally {
    await bare.stop();
  }
  const common = { database, posts, workers, load: "first page" as const, bodyBytes: body.length };
  print({ ...common, server: "quire", cache: cacheLabel(cache, read), result: read, freshReads });
  print({ ...common, server: "bare", cache: "-", result: reference });
  log(
    `  → ${((100 * read.all.perSecond) / reference.all.perSecond).toFixed(0)} % of bare node:http (${body.length} bytes; the two took turns)`,
  );
}

/** The mixed load, then the write-then-read check again: writes ran, the next reads must see the newest. */
async function mixedCase(server: Running, { database, posts, workers, cache }: ServerCase): Promise<void> {
  const sample = await sampleSite(server.origin);
  const load = await drive(server.origin, mixedCalls(sample, 17));
  print({
    database,
    posts,
    server: "quire",
    workers,
    cache: cacheLabel(cache, load),
    load: "mixed 90/10",
    result: load,
  });
  await writeThenRead(server.origin, 2);
}

/** The SQLite site is copied before the run, so the writes never touch the cached build. */
async function sqliteCase(size: number): Promise<void> {
  const built = await openSqliteSite(`${dataDir}threads-${label(size)}.sqlite`, size, log);
  built.close();
  const file = `${dataDir}http-${label(size)}.sqlite`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  const started = performance.now();
  copyFileSync(built.file, file);
  log(`copied the ${label(size)} site to ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  try {
    await runDatabase("SQLite", size, file);
  } finally {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  }
}

/**
 * The PostgreSQL site is built on a throwaway server (scripts/postgres.mjs) each run, so the writes
 * go nowhere lasting; with $QUIRE_BENCH_PG_URL they stay in schema `bench_threads_<size>`.
 */
async function pgCase(size: number): Promise<void> {
  const { url, stop } = await postgresUrl();
  try {
    const site = await openPgSite(url, size, log);
    await site.close();
    // The mixed load's posts and replies will stay: the next run on this server builds the site
    // again. Marked before any write, so a run that fails midway leaves the mark too.
    if (mixed) await markPgSiteChanged(url, size);
    const withSchema = new URL(url);
    withSchema.searchParams.set("options", `-c search_path=${site.schema}`);
    await runDatabase("PostgreSQL", size, withSchema.toString());
  } finally {
    await stop();
  }
}

mkdirSync(dataDir, { recursive: true });
log(
  `${connections} keep-alive clients (undici Pool, one request in flight each), ${warmupMs / 1000} s warm-up + ${durationMs / 1000} s measured per case; workers ${workerCounts.join(",")}; cache ${cacheModes.join(",")}`,
);
try {
  if (sqliteSize !== null) await sqliteCase(sqliteSize);
  if (pgSize !== null) await pgCase(pgSize);
} finally {
  const out = `${dataDir}http-results.json`;
  writeFileSync(out, `${JSON.stringify({ loadAverage: loadavg(), results }, null, 2)}\n`);
  log(
    `\nFigures saved to bench/.data/http-results.json; load average now ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
}
report.save();
