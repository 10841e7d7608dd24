/**
 * Collection list benchmark:
 * `pnpm bench:collections [--posts=100k] [--collections=200] [--iterations=300] [--pg=on]`.
 * Reuses the Thread benchmark's SQLite site (bench/.data/, built when missing), copies it, adds
 * collections with every root in one to three of them, and times GET /api/collections
 * (`collections.list`, with and without `lang`) and the first page of a collection's Thread list
 * in-process. `--pg=on` does the same on PostgreSQL ($QUIRE_BENCH_PG_URL or a throwaway server,
 * the Thread benchmark's site builder). See bench/README.md § Collections.
 */
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { refreshCollectionFigures } from "../packages/core/src/collections/memberships.js";
import { openDatabase } from "../packages/core/src/db/open.js";
import type { Engine } from "../packages/core/src/engine.js";
import { createEngine } from "../packages/core/src/engine.js";
import { openPgSite } from "./pg-site.js";
import { openSqliteSite } from "./sqlite-site.js";

const dataDir = new URL("./.data/", import.meta.url).pathname;
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const posts = parseSize(args.posts ?? "100k");
const collectionCount = Number(args.collections ?? 200);
const iterations = Number(args.iterations ?? 300);

function parseSize(text: string): number {
  const match = /^(\d+)(k|m)?$/.exec(text);
  if (!match) throw new Error(`Unreadable size ${text}`);
  return Number(match[1]) * (match[2] === "m" ? 1_000_000 : match[2] === "k" ? 1000 : 1);
}

async function time(label: string, run: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < Math.ceil(iterations / 10); i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) =>
    (samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0).toFixed(2);
  console.log(`${label.padEnd(44)} p50 ${at(0.5)} ms  p90 ${at(0.9)} ms  p99 ${at(0.99)} ms`);
}

/** Adds the collections and memberships, then times the reads. */
async function benchmark(engine: Engine, database: string): Promise<void> {
  const setupStarted = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < collectionCount; i++) {
    ids.push(
      (await engine.collections.create({ slug: `bench-collection-${i}`, title: `Collection ${i}` })).id,
    );
  }
  const db = engine.context.db;
  const roots = await db
    .selectFrom("posts")
    .select(["id", "status", "language", "last_activity_at"])
    .whereRef("id", "=", "thread_id")
    .execute();
  const rows = roots.flatMap((root, index) =>
    [
      ...new Set(
        Array.from({ length: 1 + (index % 3) }, (_, k) => ids[(index * 7 + k * 31) % ids.length] as string),
      ),
    ].map((collectionId) => ({
      collection_id: collectionId,
      thread_id: root.id,
      created_at: 0,
      position: null,
      pinned_at: index % 500 === 0 ? 1 : null,
      thread_status: root.status,
      thread_language: root.language ?? "",
      thread_activity_at: Number(root.last_activity_at),
    })),
  );
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < rows.length; start += 1000) {
      await trx
        .insertInto("collection_threads")
        .values(rows.slice(start, start + 1000))
        .execute();
    }
    await refreshCollectionFigures(trx, ids);
  });
  console.log(
    `${database}: ${posts} posts, ${roots.length} Threads, ${collectionCount} collections, ${rows.length} memberships (set up in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s)`,
  );
  await time("collections.list", () => engine.collections.list({}));
  await time("collections.list lang=en", () => engine.collections.list({ lang: "en" }));
  await time("collections.list view=compose", () => engine.collections.list({ view: "compose" }));
  await time("threads.list collection=bench-collection-3", () =>
    engine.threads.list({ collection: ["bench-collection-3"], limit: 20, status: "published" }),
  );
  await time("threads.list collection=…-3&sort=published", () =>
    engine.threads.list({
      collection: ["bench-collection-3"],
      sort: "published",
      limit: 20,
      status: "published",
    }),
  );
}

mkdirSync(dataDir, { recursive: true });
const source = `${dataDir}threads-${args.posts ?? "100k"}.sqlite`;
const site = await openSqliteSite(source, posts, (line) => console.log(line));
site.close();
const file = `${dataDir}collections-${args.posts ?? "100k"}.sqlite`;
for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
copyFileSync(source, file);
const sqliteEngine = createEngine({ db: await openDatabase({ url: file }) });
await sqliteEngine.migrate();
await benchmark(sqliteEngine, "SQLite");
await sqliteEngine.close();

if (args.pg === "on") {
  const scripts = (await import(new URL("../scripts/postgres.mjs", import.meta.url).href)) as {
    startPostgres(): Promise<{ url: string; stop(): Promise<void> }>;
  };
  const server = process.env.QUIRE_BENCH_PG_URL
    ? { url: process.env.QUIRE_BENCH_PG_URL, stop: async () => {} }
    : await scripts.startPostgres();
  try {
    const pgSite = await openPgSite(server.url, posts, (line) => console.log(line));
    const pgEngine = createEngine({
      db: await openDatabase({ url: server.url, schema: pgSite.schema, poolSize: 2 }),
    });
    await pgEngine.migrate();
    // A schema reused from an earlier run already has the collections: start from none.
    for (const table of [
      "collection_threads",
      "collection_figures",
      "directory_items",
      "collections",
    ] as const) {
      await pgEngine.context.db.deleteFrom(table).execute();
    }
    await pgEngine.context.db.deleteFrom("site_addresses").where("owner_type", "=", "collection").execute();
    await benchmark(pgEngine, "PostgreSQL");
    await pgEngine.close();
    await pgSite.close();
  } finally {
    await server.stop();
  }
}
