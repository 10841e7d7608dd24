/**
 * Write-path benchmark: `pnpm bench:write [--posts=3000] [--batch=500] [--edits=3000]
 * [--only=create|bulk|restore|edit] [--pg=on] [--cpu-prof] [--checkpoints=background|inline]
 * [--statements=on]`.
 * On a fresh SQLite file (and, with `--pg=on`, a fresh PostgreSQL schema: $QUIRE_BENCH_PG_URL or a
 * throwaway server), creates `--posts` Thread roots with a 1.5 KB Markdown body through
 * `engine.posts.create` one by one, restores that site from its site archive into a fresh database
 * (`importSiteArchive`, the restore path), updates `--edits` of its posts' bodies, then as many of
 * their ratings, and adds as many replies one by one (the edit series), then creates as many posts as the first series
 * through the bulk path `engine.posts.createMany` in batches of `--batch`, and prints posts/s for
 * each, with the machine.
 * `--cpu-prof` profiles each series with the inspector and prints the functions with the most self
 * time (the profiles are saved under bench/.data/). `--statements` times every better-sqlite3
 * statement of the one-by-one series and prints them per create (SQLite; the timing adds a few µs
 * per statement to that series). See bench/README.md § Write path.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine, type Engine } from "../packages/core/src/engine.js";
import { exportSiteArchive } from "../packages/core/src/export/export-archive.js";
import { importSiteArchive } from "../packages/core/src/export/import-archive.js";
import { searchIndexOf } from "../packages/core/src/search/search-index-registry.js";
import { benchArgs, postgresUrl } from "./bench-args.js";
import { benchReport, machine } from "./report.js";
import { StatementClock } from "./statement-clock.js";
import { markdownBody, wordsFrom } from "./write-body.js";

const dataDir = new URL("./.data/", import.meta.url).pathname;
const args = benchArgs();
const report = benchReport("bench:write");
const { log } = report;
const postCount = Number(args.posts ?? 3000);
const batchSize = Number(args.batch ?? 500);
const only = args.only as "create" | "bulk" | "restore" | "edit" | undefined;
/** Updates and replies in the edit series (each), on the site the one-by-one series wrote. */
const editCount = Number(args.edits ?? 3000);
const profile = args["cpu-prof"] === "true" || args["cpu-prof"] === "on";
/** SQLite's WAL checkpoints: in a worker thread (the default, db/wal-checkpointer.ts) or in the committing call. */
const backgroundCheckpoints = args.checkpoints !== "inline";
const statementClock =
  args.statements === "on" || args.statements === "true" ? new StatementClock() : undefined;

/** The create input of post `n`: a titled note with the benchmark body. */
function postInput(n: number) {
  return {
    format: "note" as const,
    title: `Write bench ${n} ${wordsFrom(n)()}`,
    bodyMarkdown: markdownBody(n),
  };
}

interface Figures {
  database: string;
  series: string;
  posts: number;
  /** Wall time, and posts per wall second. */
  seconds: number;
  perSecond: number;
  /** This process's CPU time (user + system), and posts per CPU second: on a shared machine, the figure other processes disturb least. */
  cpuSeconds: number;
  perCpuSecond: number;
}

async function timeSeries(
  name: string,
  database: string,
  run: () => Promise<void>,
  posts: number,
): Promise<Figures> {
  const session = profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await run();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  if (session) {
    const { profile: cpuProfile } = await session.post("Profiler.stop");
    session.disconnect();
    mkdirSync(dataDir, { recursive: true });
    const file = `${dataDir}write-${database.toLowerCase()}-${name}.cpuprofile`;
    writeFileSync(file, JSON.stringify(cpuProfile));
    printProfile(cpuProfile as unknown as CpuProfile, `${database} ${name}`, file);
  }
  const figures = {
    database,
    series: name,
    posts,
    seconds,
    perSecond: posts / seconds,
    cpuSeconds,
    perCpuSecond: posts / cpuSeconds,
  };
  log(
    `${database} ${name}: ${posts} posts in ${seconds.toFixed(2)} s = ${Math.round(figures.perSecond)} posts/s; ` +
      `${cpuSeconds.toFixed(2)} s of this process's CPU = ${Math.round(figures.perCpuSecond)} posts per CPU second`,
  );
  return figures;
}

interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
  }[];
  samples: number[];
  timeDeltas: number[];
}

/** Top self time by function, and by package (node_modules/<name>, our sources, node internals). */
function printProfile(cpuProfile: CpuProfile, title: string, file: string): void {
  const byNode = new Map(cpuProfile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  cpuProfile.samples.forEach((id, index) => {
    selfMs.set(id, (selfMs.get(id) ?? 0) + (cpuProfile.timeDeltas[index] ?? 0) / 1000);
  });
  const total = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const frame = byNode.get(id)?.callFrame;
    if (!frame) continue;
    const where = packageOf(frame.url);
    const name = `${frame.functionName || "(anonymous)"} ${where}${frame.url ? `:${shortPath(frame.url)}:${frame.lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
    byPackage.set(where, (byPackage.get(where) ?? 0) + ms);
  }
  const top = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(
        ([name, ms]) =>
          `  ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(6)} ms  ${name}`,
      )
      .join("\n");
  log(`\nCPU profile, ${title} (${total.toFixed(0)} ms sampled; ${file}):`);
  log(`Self time by package:\n${top(byPackage, 12)}`);
  log(`Self time by function:\n${top(byFunction, 25)}\n`);
}

function packageOf(url: string): string {
  if (url === "") return "(native/gc)";
  const match = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1] as string;
  if (url.startsWith("node:")) return "node";
  if (url.includes("/packages/core/src/")) return "@quire/core";
  return "other";
}

function shortPath(url: string): string {
  return url.replace(/^.*\/(packages\/core\/src\/|node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?)/, "");
}

async function benchmark(openEngine: () => Promise<Engine>, database: string): Promise<Figures[]> {
  const results: Figures[] = [];
  // Warm up on a throwaway batch so both series run on compiled code.
  if (only !== "bulk") {
    const engine = await openEngine();
    for (let n = 0; n < 200; n++) await engine.posts.create(postInput(1_000_000 + n));
    // Made before the clock starts, as the bulk series' are: the figure is the engine's, not the body generator's.
    const inputs = Array.from({ length: postCount }, (_, n) => postInput(n));
    statementClock?.reset();
    const ids: string[] = [];
    const created = await timeSeries(
      "create",
      database,
      async () => {
        for (const input of inputs) ids.push((await engine.posts.create(input)).id);
      },
      postCount,
    );
    if (statementClock && database === "SQLite") {
      log(`\nStatements of the ${database} create series, per create:\n${statementClock.table(postCount)}\n`);
    }
    if (only === undefined || only === "create") results.push(created);
    if (only === undefined || only === "restore")
      results.push(await timeRestore(engine, openEngine, database));
    if (only === undefined || only === "edit") results.push(...(await timeEdits(engine, ids, database)));
    await engine.close();
  }
  if (only === undefined || only === "bulk") {
    const engine = await openEngine();
    await engine.posts.createMany({ posts: Array.from({ length: 200 }, (_, n) => postInput(2_000_000 + n)) });
    const offset = 3_000_000;
    const inputs = Array.from({ length: postCount }, (_, n) => postInput(offset + n));
    results.push(
      await timeSeries(
        "bulk",
        database,
        async () => {
          for (let start = 0; start < inputs.length; start += batchSize) {
            await engine.posts.createMany({ posts: inputs.slice(start, start + batchSize) });
          }
        },
        postCount,
      ),
    );
    await engine.close();
  }
  return results;
}

/**
 * The restore path: the site the one-by-one series wrote (its 200 warm-up posts and `--posts`
 * creates), exported to a site archive in memory (untimed), then imported into a fresh database:
 * once untimed, so the import runs on compiled code, then timed. Posts per second counts the
 * archive's posts; the import writes every row the creates wrote (posts, addresses, search rows).
 */
async function timeRestore(
  source: Engine,
  openEngine: () => Promise<Engine>,
  database: string,
): Promise<Figures> {
  // Held in memory as the export wrote it (64 KiB chunks), and read back chunk by chunk, as a file's stream would be.
  const chunks: Uint8Array[] = [];
  for await (const chunk of exportSiteArchive(source)) chunks.push(chunk);
  const archive = async function* () {
    yield* chunks;
  };
  const posts = await source.context.db
    .selectFrom("posts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const postsInArchive = Number(posts.n);
  // The creates' search index thread finishes first, so it does not share the cores with the timed restore.
  await searchIndexOf(source.context.db)?.caughtUp();
  const warm = await openEngine();
  await importSiteArchive(warm, archive());
  await searchIndexOf(warm.context.db)?.caughtUp();
  await warm.close();
  const target = await openEngine();
  try {
    const figures = await timeSeries(
      "restore",
      database,
      async () => {
        await importSiteArchive(target, archive());
      },
      postsInArchive,
    );
    // The restore's pages are committed to the WAL; the checkpoint thread then copies them into the
    // database file (db/wal-checkpointer.ts): timed apart, as work that follows the restore.
    const file = sqliteFiles.get(target);
    if (file !== undefined) {
      const started = performance.now();
      await walCopied(file);
      log(
        `${database} restore: the WAL was then copied into the database file in ${((performance.now() - started) / 1000).toFixed(2)} s`,
      );
    }
    // Search is exact at once (rows not yet indexed are scanned); the index thread then reads them.
    const index = searchIndexOf(target.context.db);
    if (index) {
      const started = performance.now();
      await index.caughtUp();
      log(
        `${database} restore: the search index thread then indexed the restored posts in ${((performance.now() - started) / 1000).toFixed(2)} s`,
      );
    }
    return figures;
  } finally {
    await target.close();
  }
}

/**
 * The edit series, on the one-by-one series' site: `--edits` updates of a post's body (another
 * body of the same generator, so the render and the search row are redone), spread over the posts,
 * then as many updates of a rating alone (no render, nothing searched changes: the row, the Thread
 * lock and the figures), then as many replies, spread over the roots (each a Thread lock, the
 * figures, the search row).
 */
async function timeEdits(engine: Engine, ids: readonly string[], database: string): Promise<Figures[]> {
  const idAt = (n: number) => ids[n % ids.length] as string;
  const bodies = Array.from({ length: editCount }, (_, n) => markdownBody(4_000_000 + n));
  const replies = Array.from({ length: editCount }, (_, n) => markdownBody(5_000_000 + n));
  // Warm-up, untimed: both paths on compiled code.
  for (let n = 0; n < 100; n++) {
    await engine.posts.update({ id: idAt(n), bodyMarkdown: markdownBody(6_000_000 + n) });
    await engine.posts.update({ id: idAt(n), rating: 5 });
    await engine.posts.create({
      format: "note",
      replyToId: idAt(n),
      bodyMarkdown: markdownBody(7_000_000 + n),
    });
  }
  const updated = await timeSeries(
    "update",
    database,
    async () => {
      for (let n = 0; n < editCount; n++) await engine.posts.update({ id: idAt(n), bodyMarkdown: bodies[n] });
    },
    editCount,
  );
  const rated = await timeSeries(
    "rating",
    database,
    async () => {
      for (let n = 0; n < editCount; n++) await engine.posts.update({ id: idAt(n), rating: (n % 5) + 1 });
    },
    editCount,
  );
  const replied = await timeSeries(
    "reply",
    database,
    async () => {
      for (let n = 0; n < editCount; n++)
        await engine.posts.create({ format: "note", replyToId: idAt(n), bodyMarkdown: replies[n] });
    },
    editCount,
  );
  return [updated, rated, replied];
}

/** The SQLite file of each engine the SQLite series open. */
const sqliteFiles = new WeakMap<Engine, string>();

/**
 * Resolves once every committed WAL frame has been copied into the database file, read from the
 * wal-index in `<file>-shm` (sqlite.org/walformat.html § 2.1: `mxFrame` at byte 16 of the header,
 * `nBackfill` at byte 96, both in the machine's byte order), polled every 5 ms.
 */
async function walCopied(file: string): Promise<void> {
  const header = Buffer.alloc(100);
  const fd = openSync(`${file}-shm`, "r");
  try {
    for (;;) {
      readSync(fd, header, 0, 100, 0);
      if (header.readUInt32LE(96) >= header.readUInt32LE(16)) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    closeSync(fd);
  }
}

log(
  `Body: ${markdownBody(0).length} characters of Markdown; ${postCount} posts per series, bulk batches of ${batchSize}, ${editCount} updates and replies.\n`,
);

const results: Figures[] = [];
const dir = mkdtempSync(join(tmpdir(), "quire-bench-write-"));
try {
  let fileNumber = 0;
  results.push(
    ...(await benchmark(async () => {
      // Each series gets a fresh file: the bulk series does not write into the one-by-one's site.
      const url = join(dir, `write-${fileNumber++}.db`);
      const engine = createEngine({ db: await openDatabase({ url, backgroundCheckpoints }) });
      await engine.migrate();
      sqliteFiles.set(engine, url);
      return engine;
    }, "SQLite")),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (args.pg === "on") {
  const server = await postgresUrl();
  try {
    let schemaNumber = 0;
    results.push(
      ...(await benchmark(async () => {
        const schema = `bench_write_${schemaNumber++}`;
        const admin = await openDatabase({ url: server.url, poolSize: 1 });
        await admin.schema.dropSchema(schema).ifExists().cascade().execute();
        await admin.destroy();
        const engine = createEngine({ db: await openDatabase({ url: server.url, schema, poolSize: 2 }) });
        await engine.migrate();
        return engine;
      }, "PostgreSQL")),
    );
  } finally {
    await server.stop();
  }
}

log(`\n${machine()}`);
log(
  `\n| database | path | posts | wall s | posts/s | CPU s | posts per CPU s |\n|---|---|---|---|---|---|---|`,
);
for (const row of results) {
  log(
    `| ${row.database} | ${seriesName(row.series)} | ${row.posts} | ${row.seconds.toFixed(2)} | ${Math.round(row.perSecond)} | ${row.cpuSeconds.toFixed(2)} | ${Math.round(row.perCpuSecond)} |`,
  );
}
mkdirSync(dataDir, { recursive: true });
writeFileSync(
  `${dataDir}write-results.json`,
  `${JSON.stringify({ machine: machine(), results }, null, 2)}\n`,
);
report.save();

function seriesName(series: string): string {
  if (series === "create") return "`posts.create` one by one";
  if (series === "restore") return "restore (`importSiteArchive` of the one-by-one site)";
  if (series === "update") return "`posts.update` of a body, one by one";
  if (series === "rating") return "`posts.update` of a rating, one by one";
  if (series === "reply") return "`posts.create` of a reply, one by one";
  return `\`posts.createMany\` × ${batchSize}`;
}
