/**
 * Collections benchmark (issue 9):
 * `pnpm bench:collections [--posts=100k] [--collections=200] [--smart=50] [--iterations=300]
 * [--cold=20] [--pg=on]`.
 * Reuses the Thread benchmark's 100k-post SQLite site (bench/.data/, built when missing), copies it,
 * adds 200 collections (every root in one to three of them, one Thread in 500 pinned) and 50 smart
 * collections of varied selections through the engine, then times, each next to a hand-written SQL
 * baseline, in-process and through the Fetch handler (Bearer API token), interleaved round by round:
 * - GET /api/collections warm (no write between reads: smart-collection counts come from the
 *   engine's content-version cache) and cold (the first read after a one-row post write, which
 *   moves the content version, so the counting scan runs);
 * - three smart collections' Thread lists (`{}`, `format=link`, one naming a collection): first
 *   page and a deep page (a cursor 30 Threads before the end);
 * - a collection-filtered Thread list (GET /api/threads?collection=slug): first and deep page.
 * `--pg=on` repeats it on PostgreSQL ($QUIRE_BENCH_PG_URL or a throwaway server; the Thread
 * benchmark's schema). Figures go to bench/.data/collections-results.json. See bench/README.md §
 * Collections.
 */

import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { ownerCaller } from "../packages/core/src/caller.js";
import { refreshCollectionFigures } from "../packages/core/src/collections/memberships.js";
import { openDatabase } from "../packages/core/src/db/open.js";
import type { Engine } from "../packages/core/src/engine.js";
import { createEngine } from "../packages/core/src/engine.js";
import { mediaKindBits } from "../packages/core/src/files/media-kinds.js";
import { encodeCursor } from "../packages/core/src/shared/cursor.js";
import type { Selection } from "../packages/core/src/smart-collections/smart-collection-schemas.js";
import { zonedYearBounds } from "../packages/core/src/threads/zoned-year.js";
import { createHandler } from "../packages/http-adapter/src/index.js";
import { parseSize, postgresUrl } from "./bench-args.js";
import { openRawPg, openRawSqlite } from "./drivers.js";
import { measureTogether, ms, type Timing } from "./measure.js";
import { openPgSite } from "./pg-site.js";
import { readOnlyStorage } from "./read-only-storage.js";
import { benchReport } from "./report.js";
import { mediaColumns } from "./site-data.js";
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
const smartCount = Number(args.smart ?? 50);
const iterations = Number(args.iterations ?? 300);
const warmup = Math.ceil(iterations / 10);
const coldIterations = Number(args.cold ?? 20);
const report = benchReport("bench:collections");
const { log } = report;

/** Hand-written SQL against the benchmark's own connection (`?` placeholders, both databases). */
interface RawSql {
  all(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

function rawSqlite(file: string): RawSql {
  const raw = openRawSqlite(file);
  const statements = new Map<string, ReturnType<typeof raw.prepare>>();
  return {
    all: async (text, params = []) => {
      let statement = statements.get(text);
      if (!statement) {
        statement = raw.prepare(text);
        statements.set(text, statement);
      }
      return statement.all(...params) as Record<string, unknown>[];
    },
    close: async () => raw.close(),
  };
}

function rawPg(url: string, schema: string): RawSql {
  const pool = openRawPg(url, schema);
  const texts = new Map<string, string>();
  return {
    all: async (text, params = []) => {
      let numbered = texts.get(text);
      if (numbered === undefined) {
        let n = 0;
        numbered = text.replace(/\?/g, () => `$${++n}`);
        texts.set(text, numbered);
      }
      return (await pool.query(numbered, params)).rows;
    },
    close: () => pool.end(),
  };
}

/** Counts the statements the engine sends (to show the reads' query counts do not grow with collections). */
type KyselyPlugin = Parameters<Engine["context"]["db"]["withPlugin"]>[0];
const queryCounter: KyselyPlugin & { count: number } = {
  count: 0,
  transformQuery(args) {
    queryCounter.count++;
    return args.node;
  },
  transformResult: (args) => Promise.resolve(args.result),
};

async function queriesOf(run: () => Promise<unknown>): Promise<number> {
  const before = queryCounter.count;
  await run();
  return queryCounter.count - before;
}

/** One series' figures and the ratio columns of a results row. */
interface CaseResult {
  database: string;
  name: string;
  rows: string;
  baseline: Timing;
  engine: Timing;
  handler: Timing;
  /** In-process, then `JSON.stringify` of the answer (what the handler adds to the engine's work, in part). */
  serialized?: Timing;
  /** For a deep page: the first page's case name, for deep/first. */
  firstOf?: string;
  note?: string;
}

interface DatabaseResult {
  database: string;
  posts: number;
  threads: number;
  memberships: number;
  loadBefore: number[];
  loadAfter: number[];
  cases: CaseResult[];
}

/** The selections of the smart collections: the first three are the ones whose lists are timed. */
function selections(collectionIds: string[]): { selection: Selection; sortOrder: string }[] {
  const pick = (i: number) => collectionIds[(i * 13) % collectionIds.length] as string;
  const formats = ["note", "link", "quote"] as const;
  const orders = ["newest", "oldest", "rating_desc"];
  const media: Selection["media"][] = ["any", "none", ["image"], ["video", "audio"], ["document", "text"]];
  const visibilities = ["public", "featured", "latest_hidden"] as const;
  const list: { selection: Selection; sortOrder: string }[] = [
    { selection: {}, sortOrder: "newest" },
    { selection: { format: "link" }, sortOrder: "newest" },
    { selection: { collection: [pick(3)] }, sortOrder: "newest" },
  ];
  for (let i = list.length; i < smartCount; i++) {
    const year = 2019 + (i % 5);
    const format = formats[i % 3] as (typeof formats)[number];
    const templates: Selection[] = [
      {},
      { format },
      { year },
      { format, year },
      { media: media[i % media.length] },
      { title: i % 2 === 0, replies: i % 3 !== 0 },
      { visibility: visibilities[i % 3] },
      { collection: [pick(i)] },
      { collection: [pick(i)], format: "note" },
      { title: true, media: "none", replies: false, year },
    ];
    list.push({
      selection: templates[i % templates.length] as Selection,
      sortOrder: orders[i % 3] as string,
    });
  }
  return list;
}

/**
 * A selection as hand-written SQL on root rows `r` (the owner's view: private Threads count),
 * written here independently of the engine's `filterConditions`; the counts are checked equal.
 */
function conditionOf(selection: Selection, timeZone: string): { text: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (selection.collection) {
    parts.push("r.id in (select thread_id from collection_threads where collection_id = ?)");
    params.push(selection.collection[0]);
  }
  if (selection.format) {
    parts.push("r.format = ?");
    params.push(selection.format);
  }
  if (selection.title === true) parts.push("(r.title is not null and r.title <> '')");
  if (selection.title === false) parts.push("(r.title is null or r.title = '')");
  if (selection.year !== undefined) {
    const { start, end } = zonedYearBounds(selection.year, timeZone);
    parts.push("r.published_at >= ? and r.published_at < ?");
    params.push(start, end);
  }
  if (selection.media === "any") parts.push("r.media_kinds <> 0");
  else if (selection.media === "none") parts.push("r.media_kinds = 0");
  else if (selection.media) parts.push(`(r.media_kinds & ${mediaKindBits(selection.media)}) <> 0`);
  if (selection.replies === true) parts.push("r.thread_reply_count > 0");
  if (selection.replies === false) parts.push("r.thread_reply_count = 0");
  if (selection.visibility === "featured")
    parts.push("r.visibility <> 'private' and r.featured_at is not null");
  else if (selection.visibility) {
    parts.push("r.visibility = ?");
    params.push(selection.visibility);
  }
  return { text: parts.length > 0 ? parts.join(" and ") : "1 = 1", params };
}

const media = mediaColumns.map((column) => `m.${column} as m_${column}`).join(", ");

/** One page (21 rows: the page and the look-ahead) of published roots matching `where`, by publication, with attachments. */
function pageSql(where: string, deep: boolean): string {
  const after = deep ? "and (r.published_at, r.id) < (?, ?)" : "";
  return `select p.*, ${media} from (
      select r.* from posts r
      where r.reply_to_id is null and r.status = 'published' and ${where} ${after}
      order by r.published_at desc, r.id desc limit 21) p
    left join media m on m.post_id = p.id`;
}

/**
 * A collection's Thread list page in its `newest` order with its pins on top, by hand: the
 * pinned memberships' roots, then the unpinned ones (a deep page: only those, after the cursor).
 */
function collectionPageSql(deep: boolean): string {
  const member = "collection_id = (select id from collections where slug = ?)";
  const rest = `select r.*, 1 as seg from posts r
    where r.reply_to_id is null and r.status = 'published'
      and r.id in (select thread_id from collection_threads where ${member} and pinned_at is null)
      ${deep ? "and (r.published_at, r.id) < (?, ?)" : ""}
    order by r.published_at desc, r.id desc limit 21`;
  const page = deep
    ? `select * from (${rest}) as rest`
    : `select * from (
        select * from (select r.*, 0 as seg from collection_threads t cross join posts r
          where t.${member} and t.pinned_at is not null and r.id = t.thread_id
            and r.reply_to_id is null and r.status = 'published'
          order by r.published_at desc, r.id desc limit 21) as pinned
        union all select * from (${rest}) as rest) as both_
      order by seg, published_at desc, id desc limit 21`;
  return `select p.*, ${media} from (${page}) p left join media m on m.post_id = p.id`;
}

const figuresSql = `select c.*, f.thread_count, f.recent_activity_at from collections c
  left join (select collection_id, sum(thread_count) as thread_count, max(recent_activity_at) as recent_activity_at
    from collection_figures group by collection_id) f on f.collection_id = c.id
  order by c.created_at, c.id`;

/** The baseline root IDs must be the engine's page plus the look-ahead row, or the ratio means nothing. */
function checkSamePage(
  label: string,
  engineIds: string[],
  hasMore: boolean,
  rows: Record<string, unknown>[],
) {
  const baselineIds = [...new Set(rows.map((row) => String(row.id)))];
  const expected = engineIds.length + (hasMore ? 1 : 0);
  if (
    engineIds.length === 0 ||
    baselineIds.length !== expected ||
    !engineIds.every((id) => baselineIds.includes(id))
  ) {
    throw new Error(`${label}: the engine and the baseline read different pages`);
  }
}

/**
 * Like measureTogether, with an untimed `before` step per series (the write that precedes a cold
 * read): each round runs every series once, in turn.
 */
async function measureAfter<Name extends string>(
  fns: Record<Name, { before: () => Promise<unknown>; run: () => Promise<unknown> }>,
  options: { warmup: number; iterations: number },
): Promise<Record<Name, Timing>> {
  const names = Object.keys(fns) as Name[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
  for (let round = 0; round < options.warmup + options.iterations; round++) {
    for (const name of names) {
      await fns[name].before();
      const start = performance.now();
      await fns[name].run();
      if (round >= options.warmup) samples[name].push(performance.now() - start);
    }
  }
  const summary = (list: number[]): Timing => {
    list.sort((a, b) => a - b);
    const at = (q: number) => list[Math.min(list.length - 1, Math.floor(q * list.length))] as number;
    return {
      p50: at(0.5),
      p99: at(0.99),
      mean: list.reduce((s, x) => s + x, 0) / list.length,
      samples: list.length,
    };
  };
  return Object.fromEntries(names.map((name) => [name, summary(samples[name])])) as Record<Name, Timing>;
}

/** Adds the collections, memberships and smart collections. */
async function setUp(engine: Engine, database: string) {
  const started = performance.now();
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
  const smart: { id: string; selection: Selection }[] = [];
  for (const [i, { selection, sortOrder }] of selections(ids).entries()) {
    const created = await engine.smartCollections.create({
      slug: `bench-smart-${i}`,
      title: `Smart ${i}`,
      selection,
      sortOrder: sortOrder as "newest",
    });
    smart.push({ id: created.id, selection: created.selection });
  }
  const { token } = await engine.tokens.create({ name: "bench" });
  log(
    `${database}: ${posts} posts, ${roots.length} Threads, ${collectionCount} collections, ${rows.length} memberships, ${smart.length} smart collections (set up in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  return {
    ids,
    smart,
    token,
    threads: roots.length,
    memberships: rows.length,
    threadId: (roots[0] as { id: string }).id,
  };
}

async function benchmark(engine: Engine, raw: RawSql, database: string): Promise<DatabaseResult> {
  const setup = await setUp(engine, database);
  {
    // Statements per read, with 200 collections and 50 smart collections (the same with 2 or 2,000).
    await engine.collections.list({});
    const warmQueries = await queriesOf(() => engine.collections.list({}));
    await engine.context.db
      .updateTable("posts")
      .set((eb) => ({ updated_at: eb.ref("updated_at") }))
      .where("id", "=", setup.threadId)
      .execute();
    const coldQueries = await queriesOf(() => engine.collections.list({}));
    const smartQueries = await queriesOf(() =>
      engine.smartCollections.listThreads({ id: (setup.smart[2] as { id: string }).id, limit: 20 }),
    );
    const listQueries = await queriesOf(() =>
      engine.threads.list({ collection: ["bench-collection-3"], limit: 20 }),
    );
    log(
      `  statements per read: GET /api/collections warm ${warmQueries}, after a write ${coldQueries}; smart collection page ${smartQueries}; collection-filtered page ${listQueries}`,
    );
  }
  const loadBefore = loadavg();
  log(`  load average before timing: ${loadBefore.map((x) => x.toFixed(2)).join(", ")}`);
  const handler = createHandler(engine);
  const headers = { authorization: `Bearer ${setup.token}` };
  const get = async (path: string) => {
    const response = await handler(new Request(`http://localhost${path}`, { headers }));
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.text();
  };
  const timeZone = engine.context.settings.timeZone;
  const cases: CaseResult[] = [];
  const record = (result: CaseResult) => {
    cases.push(result);
    const r = (a: Timing) => `${ms(a.p50).padStart(7)} ${ms(a.p99).padStart(7)}`;
    log(
      `  ${result.name.padEnd(46)} base ${r(result.baseline)}  engine ${r(result.engine)}  handler ${r(result.handler)}  ×${(result.engine.p50 / result.baseline.p50).toFixed(2)} / ×${(result.handler.p50 / result.baseline.p50).toFixed(2)}`,
    );
  };

  // GET /api/collections. The baseline of a warm read: what must be read when the smart
  // collections' counts are held in memory (collections with their figures, smart collections,
  // directory). The baseline of a cold read adds one hand-written counting scan of every root.
  const scan = setup.smart.map((s) => conditionOf(s.selection, timeZone));
  const scanSql = `select count(*) as baseline, ${scan
    .map(
      (c, i) =>
        `count(case when ${c.text} then 1 end) as c${i}, max(case when ${c.text} then r.last_activity_at end) as a${i}`,
    )
    .join(",\n  ")} from posts r where r.reply_to_id is null and r.status = 'published'`;
  const scanParams = scan.flatMap((c) => [...c.params, ...c.params]);
  const warmBaseline = async () => [
    await raw.all(figuresSql),
    await raw.all("select * from smart_collections order by created_at, id"),
    await raw.all("select * from directory_items"),
  ];
  const coldBaseline = async () => [...(await warmBaseline()), await raw.all(scanSql, scanParams)];
  {
    const answer = await engine.collections.list({});
    const counted = (await raw.all(scanSql, scanParams))[0] as Record<string, unknown>;
    answer.smartCollections.forEach((item, i) => {
      if (item.threadCount !== Number(counted[`c${i}`])) {
        throw new Error(`smart collection ${i}: engine ${item.threadCount}, baseline ${counted[`c${i}`]}`);
      }
    });
    const figures = await raw.all(figuresSql);
    answer.collections.forEach((item, i) => {
      if (item.threadCount !== Number(figures[i]?.thread_count ?? 0))
        throw new Error(`collection ${i} count`);
    });
    log(
      `  GET /api/collections: ${answer.collections.length} collections, ${answer.smartCollections.length} smart collections (counts ${answer.smartCollections.map((s) => s.threadCount).join(" ")}), ${(await get("/api/collections")).length} bytes of JSON`,
    );
  }
  const warm = await measureTogether(
    {
      baseline: warmBaseline,
      engine: () => engine.collections.list({}),
      handler: () => get("/api/collections"),
      serialized: async () => JSON.stringify(await engine.collections.list({})),
    },
    { warmup, iterations },
  );
  record({ database, name: "GET /api/collections, warm", rows: "200 + 50", ...warm });
  const scanOnly = await measureTogether({ scan: coldBaseline }, { warmup: 2, iterations: coldIterations });
  log(
    `  (warm engine p50 against the baseline WITH the scan: ×${(warm.engine.p50 / scanOnly.scan.p50).toFixed(2)})`,
  );

  // Cold: a one-row post write (untimed) moves the content version before every read.
  const replies = await engine.context.db
    .selectFrom("posts")
    .select(["id", "updated_at"])
    .where("reply_to_id", "is not", null)
    .limit(50)
    .execute();
  let writes = 0;
  const write = async () => {
    // The same value again: the row does not change (the Thread benchmark's PostgreSQL site is
    // shared), but it is a write, and the trigger moves the content version as for any post write.
    const row = replies[writes++ % replies.length] as { id: string; updated_at: number };
    await engine.context.db
      .updateTable("posts")
      .set({ updated_at: row.updated_at })
      .where("id", "=", row.id)
      .execute();
  };
  const cold = await measureAfter(
    {
      baseline: { before: write, run: coldBaseline },
      engine: { before: write, run: () => engine.collections.list({}) },
      handler: { before: write, run: () => get("/api/collections") },
    },
    { warmup: 2, iterations: coldIterations },
  );
  record({
    database,
    name: "GET /api/collections, first read after a write",
    rows: "200 + 50",
    ...cold,
    note: `${coldIterations} rounds (p99 is the maximum)`,
  });

  // A smart collection's Thread list (newest: the `published` order), first and deep page.
  const smartCases = [
    { label: "{}", index: 0 },
    { label: "format=link", index: 1 },
    { label: "collection=…", index: 2 },
  ];
  for (const { label, index } of smartCases) {
    const smart = setup.smart[index] as { id: string; selection: Selection };
    const where = conditionOf(smart.selection, timeZone);
    const count = Number(
      (
        (
          await raw.all(
            `select count(*) as n from posts r where r.reply_to_id is null and r.status = 'published' and ${where.text}`,
            where.params,
          )
        )[0] as { n: unknown }
      ).n,
    );
    const deepRow = (
      await raw.all(
        `select r.published_at as k, r.id from posts r where r.reply_to_id is null and r.status = 'published' and ${where.text}
       order by r.published_at desc, r.id desc limit 1 offset ?`,
        [...where.params, Math.max(0, count - 30)],
      )
    )[0] as { k: unknown; id: string };
    const keys: [number, string] = [Number(deepRow.k), deepRow.id];
    const cursor = encodeCursor({ order: "threads.published", keys });
    for (const deep of [false, true]) {
      const input = { id: smart.id, limit: 20, ...(deep ? { cursor } : {}) };
      const path = `/api/smart-collections/${smart.id}/threads${deep ? `?${new URLSearchParams({ cursor })}` : ""}`;
      const baseline = () =>
        raw.all(pageSql(where.text, deep), deep ? [...where.params, ...keys] : where.params);
      const page = await engine.smartCollections.listThreads(input);
      checkSamePage(
        label,
        page.threads.map((t) => t.id),
        page.nextCursor !== null,
        await baseline(),
      );
      const handlerIds = (JSON.parse(await get(path)) as { threads: { id: string }[] }).threads.map(
        (t) => t.id,
      );
      if (handlerIds.join() !== page.threads.map((t) => t.id).join())
        throw new Error(`${label}: handler page differs`);
      const name = `smart collection ${label} (${count} Threads), ${deep ? "deep" : "first"} page`;
      const timings = await measureTogether(
        {
          baseline,
          engine: () => engine.smartCollections.listThreads(input),
          handler: () => get(path),
          serialized: async () => JSON.stringify(await engine.smartCollections.listThreads(input)),
        },
        { warmup, iterations },
      );
      record({
        database,
        name,
        rows: String(page.threads.length),
        ...timings,
        ...(deep ? { firstOf: `smart collection ${label} (${count} Threads), first page` } : {}),
      });
    }
  }

  // A collection-filtered Thread list: its own order (newest), pins on top.
  const slug = "bench-collection-3";
  const count = Number(
    (
      (
        await raw.all(
          `select count(*) as n from collection_threads t join posts r on r.id = t.thread_id
         where t.collection_id = (select id from collections where slug = ?) and t.pinned_at is null and r.status = 'published'`,
          [slug],
        )
      )[0] as { n: unknown }
    ).n,
  );
  const deepRow = (
    await raw.all(
      `select r.published_at as k, r.id from posts r
     where r.reply_to_id is null and r.status = 'published'
       and r.id in (select thread_id from collection_threads where collection_id = (select id from collections where slug = ?) and pinned_at is null)
     order by r.published_at desc, r.id desc limit 1 offset ?`,
      [slug, Math.max(0, count - 30)],
    )
  )[0] as { k: unknown; id: string };
  const keys: [number, string] = [Number(deepRow.k), deepRow.id];
  const cursor = encodeCursor({ order: "threads.collection.newest", keys });
  for (const deep of [false, true]) {
    const input = { collection: [slug], limit: 20, ...(deep ? { cursor } : {}) };
    const path = `/api/threads?${new URLSearchParams({ collection: slug, ...(deep ? { cursor } : {}) })}`;
    const baseline = () => raw.all(collectionPageSql(deep), deep ? [slug, ...keys] : [slug, slug]);
    const page = await engine.threads.list(input);
    checkSamePage(
      slug,
      page.threads.map((t) => t.id),
      page.nextCursor !== null,
      await baseline(),
    );
    const handlerIds = (JSON.parse(await get(path)) as { threads: { id: string }[] }).threads.map(
      (t) => t.id,
    );
    if (handlerIds.join() !== page.threads.map((t) => t.id).join())
      throw new Error(`${slug}: handler page differs`);
    const name = `GET /api/threads?collection=… (${count} Threads), ${deep ? "deep" : "first"} page`;
    const timings = await measureTogether(
      {
        baseline,
        engine: () => engine.threads.list(input),
        handler: () => get(path),
        serialized: async () => JSON.stringify(await engine.threads.list(input)),
      },
      { warmup, iterations },
    );
    record({
      database,
      name,
      rows: String(page.threads.length),
      ...timings,
      ...(deep ? { firstOf: `GET /api/threads?collection=… (${count} Threads), first page` } : {}),
    });
  }
  // The adapter's fixed cost per request, on a one-row read: the Bearer token's lookup (a SHA-256
  // and a query), routing, input parsing and JSON. A second handler authenticates by a hook (as an
  // embedding app's session would), without the token lookup.
  {
    const smart = setup.smart[0] as { id: string };
    const hooked = createHandler(engine, { authenticate: () => ownerCaller });
    const path = `http://localhost/api/smart-collections/${smart.id}`;
    const timings = await measureTogether(
      {
        baseline: () => raw.all("select * from smart_collections where id = ?", [smart.id]),
        engine: () => engine.smartCollections.get({ id: smart.id }),
        handler: () => get(`/api/smart-collections/${smart.id}`),
        serialized: async () => JSON.stringify(await engine.smartCollections.get({ id: smart.id })),
        hook: async () => (await hooked(new Request(path))).text(),
      },
      { warmup, iterations },
    );
    record({
      database,
      name: "GET /api/smart-collections/:id (one row: the adapter's fixed cost)",
      rows: "1",
      ...timings,
      note: `handler with an authenticate hook instead of the token: ${ms(timings.hook.p50)} / ${ms(timings.hook.p99)}`,
    });
  }
  const loadAfter = loadavg();
  log(`  load average after timing: ${loadAfter.map((x) => x.toFixed(2)).join(", ")}`);
  const result = {
    database,
    posts,
    threads: setup.threads,
    memberships: setup.memberships,
    loadBefore,
    loadAfter,
    cases,
  };
  table(result);
  return result;
}

/** The results as a Markdown table (pasted into bench/README.md). */
function table(result: DatabaseResult): void {
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  const pair = (t: Timing) => `${ms(t.p50)} / ${ms(t.p99)}`;
  log(`\n${result.database}: p50 / p99 in ms; ratios of p50`);
  log(
    "| Case | Baseline | In-process | In-process + JSON.stringify | Handler | In-process ÷ baseline | Handler ÷ baseline | Deep ÷ first (in-process / handler) |",
  );
  log("|---|---|---|---|---|---|---|---|");
  for (const c of result.cases) {
    const first = c.firstOf ? result.cases.find((other) => other.name === c.firstOf) : undefined;
    const deep = first ? `${x(c.engine.p50, first.engine.p50)} / ${x(c.handler.p50, first.handler.p50)}` : "";
    log(
      `| ${c.name}${c.note ? ` (${c.note})` : ""} | ${pair(c.baseline)} | ${pair(c.engine)} | ${c.serialized ? pair(c.serialized) : ""} | ${pair(c.handler)} | ${x(c.engine.p50, c.baseline.p50)} | ${x(c.handler.p50, c.baseline.p50)} | ${deep} |`,
    );
  }
}

const results: DatabaseResult[] = [];
log(
  `${iterations} timed rounds (baseline, in-process, handler in turn) after ${warmup} warm-up rounds; cold reads ${coldIterations} rounds; limit 20`,
);
mkdirSync(dataDir, { recursive: true });
if (args.sqlite !== "off") {
  const source = `${dataDir}threads-${args.posts ?? "100k"}.sqlite`;
  const site = await openSqliteSite(source, posts, log);
  site.close();
  const file = `${dataDir}collections-${args.posts ?? "100k"}.sqlite`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
  copyFileSync(source, file);
  const sqliteEngine = createEngine({
    db: (await openDatabase({ url: file })).withPlugin(queryCounter),
    storage: readOnlyStorage,
  });
  await sqliteEngine.migrate();
  const raw = rawSqlite(file);
  results.push(await benchmark(sqliteEngine, raw, "SQLite"));
  await raw.close();
  await sqliteEngine.close();
}

if (args.pg === "on") {
  const server = await postgresUrl();
  try {
    const pgSite = await openPgSite(server.url, posts, log);
    const pgEngine = createEngine({
      db: (await openDatabase({ url: server.url, schema: pgSite.schema, poolSize: 2 })).withPlugin(
        queryCounter,
      ),
      storage: readOnlyStorage,
    });
    await pgEngine.migrate();
    // A schema reused from an earlier run already has collections: start from none.
    const db = pgEngine.context.db;
    for (const table of [
      "directory_items",
      "collection_threads",
      "collection_figures",
      "smart_collections",
      "collections",
    ] as const) {
      await db.deleteFrom(table).execute();
    }
    await db
      .deleteFrom("site_addresses")
      .where("owner_type", "in", ["collection", "smart_collection"])
      .execute();
    await db.deleteFrom("api_tokens").where("name", "=", "bench").execute();
    const raw = rawPg(server.url, pgSite.schema);
    results.push(await benchmark(pgEngine, raw, "PostgreSQL"));
    await raw.close();
    await pgEngine.close();
    await pgSite.close();
  } finally {
    await server.stop();
  }
}
writeFileSync(`${dataDir}collections-results.json`, `${JSON.stringify(results, null, 2)}\n`);
log("\nFigures saved to bench/.data/collections-results.json");
report.save();
