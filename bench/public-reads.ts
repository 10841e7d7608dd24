/**
 * Public reads of one post or Thread: `pnpm bench:public-reads [--size=10k] [--pg=10k|off]
 * [--iterations=2000]`.
 * On the sites of bench:threads (built under bench/.data/, or in schema `bench_threads_<size>` of
 * $QUIRE_BENCH_PG_URL or a throwaway server), times in process, with no response cache (it lives in
 * the HTTP adapter), what a reader's page of one post asks the engine for: `publicPosts.get` of a
 * reply, `publicThreads.get` of a root with `include=fold`, `publicThreads.listPosts` of a Thread,
 * and `addresses.resolve` of a reply's address (what a site answers for a path: the address's
 * owner, then the post's reading view). Each round names other posts (500 roots and 500 replies in
 * turn), so the rounds read different rows. It prints each read's p50, mean and calls per second,
 * with the machine. See bench/README.md § Public reads.
 */
import { publicCaller } from "../packages/core/src/caller.js";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine, type Engine } from "../packages/core/src/engine.js";
import { benchArgs, label, parseSize, postgresUrl } from "./bench-args.js";
import { measureTogether, ms, type Timing } from "./measure.js";
import { openPgSite } from "./pg-site.js";
import { readOnlyStorage } from "./read-only-storage.js";
import { benchReport } from "./report.js";
import { openSqliteSite } from "./sqlite-site.js";

const dataDir = new URL("./.data/", import.meta.url).pathname;
const args = benchArgs();
const size = parseSize(args.size ?? "10k");
const pgSize = args.pg === "off" ? null : parseSize(args.pg ?? "10k");
const iterations = Number(args.iterations ?? 2000);
const report = benchReport("bench:public-reads");
const { log } = report;

/** The slugs the reads name: published roots of listed Threads, and published replies of them. */
interface Slugs {
  roots: string[];
  replies: string[];
}

/** The slugs, read through the engine's own database: the first 500 of each by ID. */
async function slugsOf(engine: Engine): Promise<Slugs> {
  const read = async (kind: "roots" | "replies") =>
    (
      await engine.context.db
        .selectFrom("posts as p")
        .innerJoin("posts as r", "r.id", "p.thread_id")
        .select("p.slug")
        .where("p.status", "=", "published")
        .where("r.status", "=", "published")
        .where("r.visibility", "=", "public")
        .where("p.reply_to_id", kind === "roots" ? "is" : "is not", null)
        .orderBy("p.id")
        .limit(500)
        .execute()
    ).map((row) => row.slug);
  return { roots: await read("roots"), replies: await read("replies") };
}

async function timeReads(database: string, engine: Engine): Promise<void> {
  const slugs = await slugsOf(engine);
  let n = 0;
  const root = () => slugs.roots[n % slugs.roots.length] as string;
  const reply = () => slugs.replies[n % slugs.replies.length] as string;
  const reads = {
    "publicPosts.get (a reply)": () => engine.publicPosts.get({ slug: reply() }, publicCaller),
    "publicThreads.get (fold)": () => engine.publicThreads.get({ slug: root(), fold: true }, publicCaller),
    "publicThreads.listPosts": () => engine.publicThreads.listPosts({ slug: root() }, publicCaller),
    "addresses.resolve (a reply)": () => {
      n += 1;
      return engine.addresses.resolve({ path: `/${reply()}` }, publicCaller);
    },
  };
  // Every read must find its post (a 404 would throw here, a path nobody holds resolves to
  // not_found), or the figures would time errors.
  for (const read of Object.values(reads)) {
    const answer = (await read()) as { kind?: string };
    if (answer.kind !== undefined && answer.kind !== "post") {
      throw new Error(`addresses.resolve answered ${answer.kind}: the site has no addresses (rebuild it)`);
    }
  }
  const timings: Record<string, Timing> = await measureTogether(reads, {
    warmup: Math.ceil(iterations / 10),
    iterations,
  });
  log(`\n${database}, ${label(size)}-post site, ${iterations} calls of each, in turn:`);
  log(`  ${"read".padEnd(28)} ${"p50 ms".padStart(8)} ${"mean ms".padStart(8)} ${"calls/s".padStart(8)}`);
  for (const [name, timing] of Object.entries(timings)) {
    log(
      `  ${name.padEnd(28)} ${ms(timing.p50).padStart(8)} ${ms(timing.mean).padStart(8)} ${String(Math.round(1000 / timing.mean)).padStart(8)}`,
    );
  }
}

const site = await openSqliteSite(`${dataDir}threads-${label(size)}.sqlite`, size, log);
try {
  const engine = createEngine({ db: await openDatabase({ url: site.file }), storage: readOnlyStorage });
  try {
    await timeReads("SQLite", engine);
  } finally {
    await engine.close();
  }
} finally {
  site.close();
}

if (pgSize !== null) {
  const server = await postgresUrl();
  try {
    const pgSite = await openPgSite(server.url, pgSize, log);
    const engine = createEngine({
      db: await openDatabase({ url: server.url, schema: pgSite.schema, poolSize: 2 }),
      storage: readOnlyStorage,
    });
    try {
      await timeReads("PostgreSQL", engine);
    } finally {
      await engine.close();
      await pgSite.close();
    }
  } finally {
    await server.stop();
  }
}

report.save();
