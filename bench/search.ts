/**
 * Search benchmark: `pnpm bench:search [--size=100k] [--pg=on|off] [--iterations=200]`.
 * Builds (or reuses, under bench/.data/) a site of `size` posts whose text is drawn from a
 * Zipf-distributed vocabulary, then times a very common word, a common word (in about one post in
 * ten), a rare word (a handful of posts) and a two-word query: the engine in-process
 * (`engine.posts.search`), through the Fetch handler (`GET /api/search`), and two hand-written
 * statements: the engine's candidate query by hand, and the classic FTS query ranking every match.
 * On SQLite the FTS5 index lives beside the site's file, in `<file>-search` (kept by a worker
 * thread, search/sqlite-search-index.ts): the build has the engine's thread index every row, and
 * the hand-written statements attach that file. See bench/README.md § Search.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine, type Engine } from "../packages/core/src/engine.js";
import { searchIndexOf } from "../packages/core/src/search/search-index-registry.js";
import { searchTextOf } from "../packages/core/src/search/search-text.js";
import { createHandler } from "../packages/http-adapter/src/index.js";
import { parseSize, postgresUrl } from "./bench-args.js";
import { openRawPg, openRawSqlite, type PgPool } from "./drivers.js";
import { measureTogether, ms, type Timing } from "./measure.js";
import { benchReport } from "./report.js";
import { generateSite, generatorVersion, type PostRowInput, postColumns } from "./site-data.js";

const dataDir = new URL("./.data/", import.meta.url).pathname;
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const size = parseSize(args.size ?? "100k");
const withPg = args.pg !== "off";
const iterations = Number(args.iterations ?? 200);
const warmup = Math.ceil(iterations / 10);
const limit = 20;
const report = benchReport("bench:search");
const { log } = report;
const buildKey = `search-v4:g${generatorVersion}:${size}`;

/** A deterministic pseudo-random source (mulberry32). */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 20,000 made-up words of 4 to 10 letters (syllables, so they share trigrams as real words do),
 * and a sampler that draws them with Zipf's law (s = 1), as words of real text are drawn.
 */
function vocabulary(next: () => number) {
  const syllables =
    "ka lo mi ne ru sa te vo bi da fe gu ho ji ku la ma no pe qui re si to un ve wa xe yo zu".split(" ");
  const words = new Set<string>();
  while (words.size < 20_000) {
    let word = "";
    const count = 2 + Math.floor(next() * 4);
    for (let i = 0; i < count; i++) word += syllables[Math.floor(next() * syllables.length)];
    if (word.length >= 4) words.add(word);
  }
  const list = [...words];
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= list.length; rank++) {
    total += 1 / rank;
    cumulative.push(total);
  }
  const draw = () => {
    const roll = next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < roll) lo = mid + 1;
      else hi = mid;
    }
    return list[lo] as string;
  };
  return { list, draw };
}

/** The benchmark's posts: the thread benchmark's site, with Zipf text in place of lorem ipsum. */
function* searchSite(): Generator<PostRowInput[]> {
  const next = random(11);
  const { draw } = vocabulary(next);
  for (const thread of generateSite(size)) {
    for (const post of thread.posts) {
      const text = Array.from({ length: 20 + Math.floor(next() * 60) }, draw).join(" ");
      post.body_text = text;
      post.body_markdown = text;
      post.body_html = `<p>${text}</p>`;
      post.body = JSON.stringify({
        type: "doc",
        content: [{ type: "paragraph", content: [{ type: "text", text }] }],
      });
      if (post.quote_text !== null) post.quote_text = text.slice(0, 80);
      post.display_title = post.title ?? text.slice(0, 60);
    }
    yield thread.posts;
  }
}

/** The vocabulary's words by document frequency, most frequent first. */
function wordsByFrequency(df: Map<string, number>): string[] {
  return [...df]
    .filter(([word]) => /^[a-z]{4,}$/.test(word) && word !== "post")
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([word]) => word);
}

/**
 * The queries, picked by how many posts each actually matches (a substring test: a made-up word
 * can occur inside longer ones): the most frequent word, a word matching 8–12 % of the published
 * posts, a word matching 1–10 posts, and two common words together.
 */
async function pickQueries(built: Built, count: (q: string) => Promise<number> | number) {
  const find = async (from: string[], ok: (n: number) => boolean) => {
    for (const word of from) if (ok(await count(word))) return word;
    throw new Error("no word matches the wanted share of posts");
  };
  const n = built.published;
  const common = await find(built.words.slice(0, 2000), (m) => m >= n * 0.08 && m <= n * 0.12);
  const other = await find(
    built.words.slice(0, 2000).filter((w) => w !== common),
    (m) => m >= n * 0.15 && m <= n * 0.25,
  );
  const rare = await find(built.words.filter((w) => w.length >= 9).reverse(), (m) => m >= 1 && m <= 10);
  return {
    "very common": built.words[0] as string,
    common,
    rare,
    "two words": `${common} ${other}`,
  };
}

function documentFrequencies(rows: PostRowInput[], df: Map<string, number>): void {
  for (const row of rows) {
    if (row.status !== "published") continue;
    for (const word of new Set(searchTextOf(row).split(/\s+/))) df.set(word, (df.get(word) ?? 0) + 1);
  }
}

interface Built {
  published: number;
  /** Vocabulary words, most frequent first (as whole words; substring matches may be more). */
  words: string[];
}

/** The search index's file beside the site's (search/sqlite-search-index.ts). */
const indexFileOf = (file: string) => `${file}-search`;

async function buildSqlite(file: string): Promise<Built> {
  const started = performance.now();
  mkdirSync(dataDir, { recursive: true });
  for (const name of [file, indexFileOf(file)]) {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${name}${suffix}`, { force: true });
  }
  const engine = createEngine({ db: await openDatabase({ url: file }) });
  await engine.migrate();
  await engine.close();
  const raw = openRawSqlite(file);
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = OFF");
  const insertPost = raw.prepare(
    `insert into posts (${postColumns.join(", ")}) values (${postColumns.map(() => "?").join(", ")})`,
  );
  const insertSearch = raw.prepare("insert into post_search (post_id, search_text) values (?, ?)");
  const df = new Map<string, number>();
  let published = 0;
  const load = raw.transaction((rows: PostRowInput[]) => {
    for (const row of rows) {
      insertPost.run(...postColumns.map((column) => row[column]));
      if (row.status === "published") {
        insertSearch.run(row.id, searchTextOf(row));
        published++;
      }
    }
  });
  for (const rows of searchSite()) {
    load(rows);
    documentFrequencies(rows, df);
  }
  raw.pragma("wal_checkpoint(TRUNCATE)");
  raw.close();
  log(`loaded ${file}: ${size} posts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // The index, as the engine builds it: its thread reads every row into `<file>-search`. The
  // engine runs a statement first (`migrate`, nothing to do): Kysely's destroy skips a driver that
  // never ran one, and would then leave the index's thread running.
  const db = await openDatabase({ url: file });
  const indexer = createEngine({ db });
  await indexer.migrate();
  const index = searchIndexOf(db);
  if (!index) throw new Error("openDatabase gave the SQLite file no search index");
  const indexing = performance.now();
  await index.caughtUp();
  const indexSeconds = (performance.now() - indexing) / 1000;
  await indexer.close();
  log(`index built in ${indexSeconds.toFixed(1)} s, ${Math.round(published / indexSeconds)} rows/s`);
  const optimizing = performance.now();
  const rawIndex = openRawSqlite(indexFileOf(file));
  rawIndex.exec("insert into post_search_fts(post_search_fts) values ('optimize')");
  rawIndex.pragma("wal_checkpoint(TRUNCATE)");
  rawIndex.close();
  log(`index optimized in ${((performance.now() - optimizing) / 1000).toFixed(1)} s`);
  const built = { published, words: wordsByFrequency(df) };
  const meta = openRawSqlite(file);
  meta.exec("create table bench_meta (key text primary key, value text not null)");
  meta
    .prepare("insert into bench_meta (key, value) values ('build', ?), ('site', ?)")
    .run(buildKey, JSON.stringify(built));
  meta.pragma("wal_checkpoint(TRUNCATE)");
  meta.close();
  log(`built ${file}: ${size} posts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return built;
}

/**
 * The site already built under `file` for this build key, if its index file is there and holds
 * every row (else the timed searches would scan what the index lacks, and start its thread).
 */
function sqliteBuilt(file: string): Built | null {
  if (!existsSync(file) || !existsSync(indexFileOf(file))) return null;
  const raw = openRawSqlite(file);
  try {
    const rows = raw.prepare("select key, value from bench_meta").all() as { key: string; value: string }[];
    const meta = new Map(rows.map((row) => [row.key, row.value]));
    if (meta.get("build") !== buildKey) return null;
    raw.prepare("attach database ? as search").run(indexFileOf(file));
    const complete = raw
      .prepare(
        `select (select value from search.search_state where name = 'indexed_through')
                  = (select seq from sqlite_sequence where name = 'post_search')
                and (select value from search.search_state where name = 'identity')
                  = (select version from content_versions where name = 'search_identity') as complete`,
      )
      .get() as { complete: number | null };
    return complete.complete === 1 ? (JSON.parse(meta.get("site") as string) as Built) : null;
  } catch {
    return null;
  } finally {
    raw.close();
  }
}

async function buildPg(url: string, schema: string): Promise<Built> {
  const started = performance.now();
  const raw = openRawPg(url, schema);
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
  // The GIN index is built once after the load, as a restore would; the engine's writes keep it.
  const index = await raw.query(
    "select indexdef from pg_indexes where schemaname = $1 and indexname = 'post_search_trgm'",
    [schema],
  );
  await raw.query("drop index post_search_trgm");
  const df = new Map<string, number>();
  let published = 0;
  for (const rows of searchSite()) {
    await insert("posts", postColumns, rows);
    const search = rows
      .filter((row) => row.status === "published")
      .map((row) => ({ post_id: row.id, search_text: searchTextOf(row) }));
    published += search.length;
    await insert("post_search", ["post_id", "search_text"], search);
    documentFrequencies(rows, df);
  }
  await raw.query(index.rows[0]?.indexdef as string);
  const built = { published, words: wordsByFrequency(df) };
  await raw.query("create table bench_meta (key text primary key, value text not null)");
  await raw.query("insert into bench_meta (key, value) values ('build', $1), ('site', $2)", [
    buildKey,
    JSON.stringify(built),
  ]);
  await raw.query("analyze");
  await raw.end();
  log(`built ${schema}: ${size} posts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return built;
}

async function pgBuilt(raw: PgPool): Promise<Built | null> {
  try {
    const { rows } = await raw.query("select key, value from bench_meta");
    const meta = new Map(rows.map((row) => [row.key as string, row.value as string]));
    return meta.get("build") === buildKey ? (JSON.parse(meta.get("site") as string) as Built) : null;
  } catch {
    return null;
  }
}

/**
 * The hand-written statements. `window` is the engine's own candidate query written out (the 200
 * most recently written matches with their text; the engine then ranks them and reads 20 posts);
 * `ranked` is the classic hand-written FTS query that ranks every match (bm25() on SQLite, the
 * same term-frequency score in SQL on PostgreSQL) and returns the best 20 IDs. On SQLite both run
 * on the site's file with the index file attached as `search`; `window` is the index's part of
 * `SqliteSearchIndex.candidates` when the index holds every row (the scan of rows above its mark
 * then finds none, and the mark's test `f.rowid <= …` keeps every match).
 */
const sqliteWindow = `
  select s.id as seq, s.post_id, s.search_text
  from search.post_search_fts(?) f join post_search s on s.id = f.rowid
  order by f.rowid desc limit 200`;
const sqliteRanked = `
  select s.post_id from (select rowid, rank from search.post_search_fts(?)
                         order by rank limit ${limit}) f
  join post_search s on s.id = f.rowid order by f.rank`;

function pgStatements(terms: string[]) {
  const likes = terms.map((_, i) => `s.search_text like $${i + 1}`).join(" and ");
  const score = terms
    .map((term, i) => {
      const tf = `((length(s.search_text) - length(replace(s.search_text, $${terms.length + i + 1}, ''))) / ${[...term].length}::float8)`;
      return `(${tf} / (${tf} + 1.2 * (0.25 + 0.75 * length(s.search_text) / 400::float8)))`;
    })
    .join(" + ");
  const patterns = terms.map((term) => `%${term}%`);
  return {
    recent: (rows: number) => ({
      text: `select s.id, s.post_id, s.search_text
             from (select id, post_id, search_text from post_search order by id desc limit ${rows}) s
             where ${likes} order by s.id desc limit 200`,
      params: patterns,
    }),
    window: {
      text: `select s.id, s.post_id, s.search_text from post_search s where ${likes} order by s.id + 0 desc limit 200`,
      params: patterns,
    },
    ranked: {
      text: `select s.post_id from post_search s where ${likes} order by ${score} desc, s.id desc limit ${limit}`,
      params: [...patterns, ...terms],
    },
  };
}

interface QueryResult {
  database: string;
  name: string;
  q: string;
  matches: number;
  ranked: Timing;
  window: Timing;
  engine: Timing;
  handler: Timing;
}

interface Baselines {
  ranked(q: string): unknown;
  window(q: string): unknown;
  count(q: string): Promise<number> | number;
}

async function timeQueries(
  database: string,
  engine: Engine,
  built: Built,
  queries: Record<string, string>,
  baselines: Baselines,
): Promise<QueryResult[]> {
  const handler = createHandler(engine, { devApiToken: "bench-token", clientAddress: () => "127.0.0.1" });
  const headers = { authorization: "Bearer bench-token" };
  const results: QueryResult[] = [];
  const columns = ["FTS ranked", "FTS window", "engine", "Fetch handler"];
  log(`\n${database}, ${size / 1000}k posts (${built.published} published, searchable)`);
  log(`  ${"query".padEnd(34)} ${"matches".padStart(8)} ${columns.map((c) => c.padStart(15)).join(" ")}`);
  log(`  ${"".padEnd(34)} ${"".padStart(8)} ${columns.map(() => "p50    p99".padStart(15)).join(" ")}`);
  for (const [name, q] of Object.entries(queries)) {
    const url = `http://localhost/api/search?${new URLSearchParams({ q, limit: String(limit) })}`;
    const matches = await baselines.count(q);
    const answer = await engine.posts.search({ q, limit });
    if (answer.count !== Math.min(limit, matches)) throw new Error(`${database}: wrong count for ${q}`);
    const response = await handler(new Request(url, { headers }));
    if (response.status !== 200) throw new Error(`${database}: GET /api/search answered ${response.status}`);
    const timings = await measureTogether(
      {
        ranked: () => baselines.ranked(q),
        window: () => baselines.window(q),
        engine: () => engine.posts.search({ q, limit }),
        handler: async () => (await handler(new Request(url, { headers }))).text(),
      },
      { warmup, iterations },
    );
    const result = { database, name, q, matches, ...timings };
    const pair = (t: Timing) => `${ms(t.p50).padStart(7)} ${ms(t.p99).padStart(7)}`;
    log(
      `  ${`${name} (${q})`.padEnd(34)} ${String(matches).padStart(8)} ${[timings.ranked, timings.window, timings.engine, timings.handler].map(pair).join(" ")}`,
    );
    results.push(result);
  }
  return results;
}

async function sqliteCase(): Promise<{ results: QueryResult[]; queries: Record<string, string> }> {
  const file = `${dataDir}search-${size / 1000}k.sqlite`;
  const built = sqliteBuilt(file) ?? (await buildSqlite(file));
  const engine = createEngine({ db: await openDatabase({ url: file }) });
  await engine.migrate();
  const raw = openRawSqlite(file);
  raw.prepare("attach database ? as search").run(indexFileOf(file));
  const ranked = raw.prepare(sqliteRanked);
  const window = raw.prepare(sqliteWindow);
  const count = raw.prepare("select count(*) as n from search.post_search_fts(?)");
  const match = (q: string) =>
    q
      .split(/\s+/)
      .map((term) => `"${term}"`)
      .join(" ");
  const countOf = (q: string) => (count.get(match(q)) as { n: number }).n;
  try {
    const queries = await pickQueries(built, countOf);
    const results = await timeQueries("SQLite", engine, built, queries, {
      ranked: (q) => ranked.all(match(q)),
      window: (q) => window.all(match(q)),
      count: countOf,
    });
    return { results, queries };
  } finally {
    raw.close();
    await engine.close();
  }
}

async function pgCase(queries: Record<string, string>): Promise<QueryResult[]> {
  const { url, stop } = await postgresUrl();
  const schema = `bench_search_${size}`;
  try {
    const probe = openRawPg(url, schema);
    const existing = await pgBuilt(probe);
    await probe.end();
    const built = existing ?? (await buildPg(url, schema));
    const engine = createEngine({ db: await openDatabase({ url, schema, poolSize: 2 }) });
    const raw = openRawPg(url, schema);
    const run = async (q: string, which: "ranked" | "window") => {
      const statements = pgStatements(q.split(/\s+/));
      if (which === "window") {
        // The engine's steps: the newest 5,000 rows; further back when they hold 80 to 199
        // matches; the index when still too few.
        const first = statements.recent(5000);
        let recent = (await raw.query(first.text, first.params)).rows;
        if (recent.length >= 80 && recent.length < 200) {
          const further = statements.recent(Math.ceil(((5000 * 200) / recent.length) * 1.5));
          recent = (await raw.query(further.text, further.params)).rows;
        }
        if (recent.length === 200) return recent;
      }
      const { text, params } = statements[which];
      return (await raw.query(text, params)).rows;
    };
    try {
      return await timeQueries("PostgreSQL", engine, built, queries, {
        ranked: (q) => run(q, "ranked"),
        window: (q) => run(q, "window"),
        count: async (q) => {
          const terms = q.split(/\s+/);
          const likes = terms.map((_, i) => `search_text like $${i + 1}`).join(" and ");
          const { rows } = await raw.query(
            `select count(*)::int as n from post_search where ${likes}`,
            terms.map((term) => `%${term}%`),
          );
          return rows[0]?.n as number;
        },
      });
    } finally {
      await raw.end();
      await engine.close();
    }
  } finally {
    await stop();
  }
}

log(
  `${iterations} timed rounds (FTS ranked, FTS window, engine, handler in turn) after ${warmup} warm-up rounds; limit ${limit}`,
);
const sqlite = await sqliteCase();
const results = [...sqlite.results, ...(withPg ? await pgCase(sqlite.queries) : [])];
mkdirSync(dataDir, { recursive: true });
writeFileSync(`${dataDir}search-results.json`, `${JSON.stringify(results, null, 2)}\n`);
log("\nFigures saved to bench/.data/search-results.json");
report.save();
