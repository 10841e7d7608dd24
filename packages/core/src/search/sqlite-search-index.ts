import { Worker } from "node:worker_threads";
import { stopWorker } from "../shared/stop-worker.js";
import type { Candidate } from "./search-query.js";
import { isIndexable } from "./search-text.js";

/** What the index needs of a better-sqlite3 connection (the driver's own type is not a dependency of this file). */
interface Connection {
  prepare(source: string): {
    all(...params: unknown[]): unknown[];
    get(...params: unknown[]): unknown;
    run(...params: unknown[]): unknown;
  };
  exec(source: string): unknown;
  pragma(source: string): unknown;
  close(): unknown;
}

/** Options for {@link SqliteSearchIndex}. */
export interface SqliteSearchIndexOptions {
  /** The site's database file (absolute); the index lives beside it in `<file>-search`. */
  file: string;
  /** Opens a connection to a file (better-sqlite3's constructor). */
  connect: (file: string) => Connection;
  /** Resolves the better-sqlite3 module's path, loaded again in the indexing thread. */
  driverPath: () => string;
  /** Rows waiting to be indexed before the indexing thread starts (default 100). */
  afterRows?: number;
  /** Least time between two calls for indexing (default 50 ms). */
  intervalMs?: number;
  /** Rows the thread indexes per transaction (default 500). */
  batchRows?: number;
}

/**
 * The index file's tables, for the schema named `prefix` (`main.` in the thread, `search.` on the
 * reading connection): the FTS5 trigram index without a copy of the text (`content=''`, rows
 * deleted by key), and its marks: `indexed_through`, the highest `post_search` key it has read;
 * `swept_through`, where the sweep for rows gone from `post_search` stands; `identity`, the
 * database it indexes (`content_versions.search_identity`).
 */
function schemaOf(prefix: string): string {
  return `
create table if not exists ${prefix}search_state (name text primary key, value integer not null);
create virtual table if not exists ${prefix}post_search_fts using fts5(
  search_text, content='', contentless_delete=1, tokenize='trigram case_sensitive 1'
);
insert or ignore into ${prefix}search_state (name, value)
  values ('indexed_through', 0), ('swept_through', 0), ('identity', 0);
`;
}

/**
 * The highest `post_search` key the index holds, read in the statement that uses it: 0 when the
 * index file belongs to another database (another identity) or is ahead of this one (a restored
 * backup: its keys were handed out again), so every row is then searched by scan.
 */
const indexedThrough = `coalesce((
  select st.value from search.search_state st
  where st.name = 'indexed_through'
    and (select value from search.search_state where name = 'identity')
      = (select version from content_versions where name = 'search_identity')
    and st.value <= coalesce((select seq from sqlite_sequence where name = 'post_search'), 0)
), 0)`;

/**
 * The indexing thread's code: its own connection to the index file, with the site's file attached
 * for reading. One step is one transaction on the index file only (a deferred `begin` whose first
 * statement writes there, so the site's file is only read and never locked against the engine's
 * writes): check the identity and the mark, index up to `batchRows` rows above the mark in key
 * order, move the mark; once nothing is left, sweep one stretch of the index for rows gone from
 * `post_search` (deleted, unpublished or rewritten under a new key). Several processes on one file
 * each run a thread; the index file's write lock puts their steps one after another, and each reads
 * the mark inside its own.
 */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driverPath);
const { indexFile, siteFile, schema, batchRows } = workerData;
const answered = new Int32Array(workerData.answered);
const db = new Database(indexFile);
db.pragma("journal_mode = WAL");
db.pragma("busy_timeout = 5000");
db.pragma("synchronous = NORMAL");
db.exec(schema);
db.prepare("attach database ? as site").run(siteFile);
const lock = db.prepare("update search_state set value = value where name = 'indexed_through'");
const marks = db.prepare("select name, value from search_state");
const siteMarks = db.prepare(
  "select (select version from site.content_versions where name = 'search_identity') as identity, " +
  "coalesce((select seq from site.sqlite_sequence where name = 'post_search'), 0) as seq"
);
const setMark = db.prepare("update search_state set value = ? where name = ?");
const waiting = db.prepare("select id, search_text from site.post_search where id > ? order by id limit ?");
const insert = db.prepare("insert into post_search_fts (rowid, search_text) values (?, ?)");
const stretch = db.prepare(
  "select f.rowid as id, exists (select 1 from site.post_search s where s.id = f.rowid) as live " +
  "from post_search_fts f where f.rowid > ? order by f.rowid limit ?"
);
const remove = db.prepare("delete from post_search_fts where rowid = ?");
const empty = db.prepare("insert into post_search_fts (post_search_fts) values ('delete-all')");

function step() {
  db.exec("begin");
  try {
    lock.run();
    const mark = Object.fromEntries(marks.raw().all());
    const site = siteMarks.get();
    if (site.identity === null || site.identity === undefined) {
      db.exec("rollback");
      return { indexed: 0, through: 0 };
    }
    let through = mark.indexed_through;
    let swept = mark.swept_through;
    if (mark.identity !== site.identity || through > site.seq) {
      empty.run();
      through = 0;
      swept = 0;
      setMark.run(site.identity, "identity");
    }
    const rows = waiting.all(through, batchRows);
    for (const row of rows) insert.run(row.id, row.search_text);
    if (rows.length > 0) through = rows[rows.length - 1].id;
    if (rows.length < batchRows) {
      const seen = stretch.all(swept, batchRows * 4);
      for (const entry of seen) if (!entry.live) remove.run(entry.id);
      swept = seen.length < batchRows * 4 ? 0 : seen[seen.length - 1].id;
    }
    setMark.run(through, "indexed_through");
    setMark.run(swept, "swept_through");
    db.exec("commit");
    return { indexed: rows.length, through };
  } catch (error) {
    if (db.inTransaction) db.exec("rollback");
    throw error;
  }
}

// Each call carries a ticket. A pass reads every row committed before it began, so its answer
// names the last ticket received before it began: a caller holding that ticket or an earlier one
// knows every row written before its call is in. A call that comes during a pass gets a pass of
// its own after it.
let busy = false;
let received = 0;
let passFor = 0;
let closed = false;
function run() {
  if (closed) return;
  try {
    const startedFor = received;
    const done = step();
    if (startedFor > passFor && done.indexed < batchRows) passFor = startedFor;
    if (done.indexed === batchRows || received > passFor) {
      setImmediate(run);
      return;
    }
    busy = false;
    Atomics.store(answered, 0, passFor | 0);
    parentPort.postMessage({ ticket: passFor, through: done.through });
  } catch (error) {
    busy = false;
    Atomics.store(answered, 0, received | 0);
    parentPort.postMessage({ ticket: received, error: String(error && error.message) });
  }
}
parentPort.on("message", (message) => {
  if (message === "close") {
    closed = true;
    db.close();
    parentPort.close();
    return;
  }
  received = message;
  if (busy) return;
  busy = true;
  run();
});
`;

/**
 * SQLite's search index, kept outside the writing transaction.
 *
 * FTS5 writes a trigram index of a post's whole text when its transaction commits: measured on this
 * project's 2-vCPU VM, 0.4 ms of the 1.5 ms a 1.5 KB post create cost, more than the post's own
 * rows. So the writes store only the row in `post_search` (search text under an AUTOINCREMENT key,
 * in the write's transaction, as before), and a worker thread indexes those rows into an FTS5
 * table in a second file beside the database, `<file>-search`, in batches, on another core. Its own
 * file, because SQLite locks a whole file for a writer: an index in the site's file would hold the
 * engine's writes up while the thread wrote it, and the engine's connection waits for a lock
 * synchronously, on the event loop.
 *
 * Search stays exact and sees every committed write at once: the index records the highest key it
 * has read, keys are never handed out twice and always grow with commit order, so every row above
 * that mark is a row the index has not seen, and a search scans those (an `instr` per term, newest
 * first) and asks the index for the rest, in one statement on one connection. A row the index
 * holds but `post_search` no longer does (a post deleted, unpublished or edited: an edit writes
 * its row again under a new key) is dropped by the join, and later from the index by the thread's
 * sweep.
 *
 * The thread starts once `afterRows` rows wait (a small site, and most tests, never start one:
 * scanning a hundred rows costs less than a millisecond). It is told to index at most every
 * `intervalMs`, after a connection of the engine is released. If the index file is lost, it is
 * rebuilt from `post_search`; one from another database is recognised by `identity` and rebuilt.
 * @see docs/search.md § SQLite: the index beside the file
 */
export class SqliteSearchIndex {
  readonly #options: Required<SqliteSearchIndexOptions>;
  readonly indexFile: string;
  #reader: Connection | undefined;
  readonly #statements = new Map<string, ReturnType<Connection["prepare"]>>();
  #worker: Worker | undefined;
  #failed = false;
  #failedAt = 0;
  #closed = false;
  /**
   * The last ticket the thread has answered, shared with it: read by {@link poke}, which must see
   * an answer even when the event loop has not turned since (a script awaiting writes one after
   * another never lets it, and the thread's answer message waits until it does).
   */
  #answered: Int32Array | undefined;
  #lastAsked = 0;
  #tickets = 0;
  #waiters: { ticket: number; resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(options: SqliteSearchIndexOptions) {
    this.#options = { afterRows: 100, intervalMs: 50, batchRows: 500, ...options };
    this.indexFile = `${options.file}-search`;
  }

  /**
   * Opens the reading connection now, making the index file if it is missing and emptying it if it
   * belongs to another database or is ahead of this one (a restored backup): done when the
   * database is opened, before this engine writes, so a restored site never gives a key the index
   * already holds to a new row. Before the migrations have run there is nothing to check.
   */
  open(): void {
    try {
      this.#openReader();
    } catch {
      // Not migrated yet (no post_search); checked again when the reader is next needed.
    }
  }

  /** True while the indexing thread runs. */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /**
   * The published posts whose search text holds every term (folded), newest written first, at most
   * `window` (search-query.ts `rankingWindow`): rows above the index's mark by scan, the others
   * through the index.
   */
  candidates(terms: readonly string[], window: number): Candidate[] {
    const contains = () => "and instr(s.search_text, ?) > 0";
    const indexed = terms.filter(isIndexable);
    const short = terms.filter((term) => !isIndexable(term));
    if (indexed.length === 0) {
      return this.#statement(
        `select s.id as seq, s.post_id, s.search_text from post_search s
           where 1 = 1 ${short.map(contains).join(" ")} order by s.id desc limit ${window}`,
      ).all(...short) as Candidate[];
    }
    const phrase = indexed.map((term) => `"${term.replaceAll('"', '""')}"`).join(" ");
    return this.#statement(
      `select seq, post_id, search_text from (
           select s.id as seq, s.post_id, s.search_text from post_search s
           where s.id > ${indexedThrough} ${terms.map(contains).join(" ")}
           order by s.id desc limit ${window})
         union all
         select seq, post_id, search_text from (
           select s.id as seq, s.post_id, s.search_text
           from search.post_search_fts(?) f join post_search s on s.id = f.rowid
           where f.rowid <= ${indexedThrough} ${short.map(contains).join(" ")}
           order by f.rowid desc limit ${window})
         order by seq desc limit ${window}`,
    ).all(...terms, phrase, ...short) as Candidate[];
  }

  /** Called after the engine's connection is released: a write may have added rows to index. */
  poke(): void {
    const now = Date.now();
    // A thread that failed (its connection could not open the file, say) is tried again after a
    // while; meanwhile searches scan what it has not indexed.
    if (this.#failed && !this.#closed && now - this.#failedAt >= retryAfterMs) this.#failed = false;
    if (this.#closed || this.#failed || this.#pending()) return;
    if (now - this.#lastAsked < this.#options.intervalMs) return;
    this.#lastAsked = now;
    try {
      if (!this.#worker && this.#waiting() < this.#options.afterRows) return;
      this.#ask();
    } catch {
      // A poke must never fail the query it follows, and before the migrations have run there is
      // nothing to index: searches scan whatever the index does not hold.
    }
  }

  /**
   * Resolves once the thread has indexed every row committed before the call (starting it if
   * needed): for tests, benchmarks and operators who want the index complete now.
   */
  async caughtUp(): Promise<void> {
    if (this.#closed) throw new Error("The search index is closed");
    const ticket = this.#ask(true);
    this.#worker?.ref();
    await new Promise<void>((resolve, reject) => this.#waiters.push({ ticket, resolve, reject }));
  }

  /** Stops the thread and closes the reading connection; later pokes do nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#statements.clear();
    this.#reader?.close();
    this.#reader = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#settle(new Error("The search index was closed"));
    if (worker) await stopWorker(worker);
  }

  /** Rows above the index's mark (keys can have gaps, so at most this many). */
  #waiting(): number {
    const row = this.#statement(
      `select coalesce((select seq from sqlite_sequence where name = 'post_search'), 0) - ${indexedThrough} as waiting`,
    ).get() as { waiting: number };
    return row.waiting;
  }

  /**
   * Asks the thread for a pass (starting it first), unless one was asked and not answered yet
   * (`force`: even then); answers the call's ticket.
   */
  #ask(force = false): number {
    if (this.#failed) throw new Error("The search index thread failed");
    if (!this.#worker) this.#start();
    const worker = this.#worker;
    if (!worker || (this.#pending() && !force)) return this.#tickets;
    this.#tickets += 1;
    worker.postMessage(this.#tickets);
    return this.#tickets;
  }

  /**
   * A statement of the reading connection, prepared once per text: a text depends only on how many
   * terms a query has and how many are short, so there are few.
   */
  #statement(source: string): ReturnType<Connection["prepare"]> {
    const reader = this.#openReader();
    let statement = this.#statements.get(source);
    if (!statement) {
      if (this.#statements.size >= 64) this.#statements.clear();
      statement = reader.prepare(source);
      this.#statements.set(source, statement);
    }
    return statement;
  }

  #openReader(): Connection {
    if (this.#reader) return this.#reader;
    const reader = this.#options.connect(this.#options.file);
    try {
      reader.pragma("busy_timeout = 5000");
      reader.prepare("attach database ? as search").run(this.indexFile);
      reader.pragma("search.journal_mode = WAL");
      reader.exec(schemaOf("search."));
      resetIfForeign(reader);
      reader.pragma("query_only = 1");
    } catch (error) {
      reader.close();
      throw error;
    }
    this.#reader = reader;
    return reader;
  }

  #start(): void {
    // Every ticket handed out before this thread is answered: a thread that failed took them with it.
    const answered = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    answered[0] = this.#tickets | 0;
    let worker: Worker;
    try {
      worker = new Worker(workerSource, {
        eval: true,
        workerData: {
          // Resolved here, not at open: a bundler may have placed the driver where only its import finds it.
          driverPath: this.#options.driverPath(),
          indexFile: this.indexFile,
          siteFile: this.#options.file,
          schema: schemaOf(""),
          batchRows: this.#options.batchRows,
          answered: answered.buffer,
        },
      });
    } catch (error) {
      this.#fail();
      throw error;
    }
    worker.on("message", (answer: { ticket: number; error?: string }) => {
      this.#settle(answer.error === undefined ? undefined : new Error(answer.error), answer.ticket);
    });
    worker.on("error", () => this.#fail());
    worker.on("exit", () => {
      if (!this.#closed) this.#fail();
    });
    // After the listeners: adding a 'message' listener refs the worker again. The thread never keeps
    // the process alive by itself, only while someone awaits `caughtUp()`.
    worker.unref();
    this.#worker = worker;
    this.#answered = answered;
  }

  /**
   * Whether a pass was asked that the thread has not answered yet: its last answer is not the last
   * ticket (compared as 32-bit integers, as the slot holds them: a ticket past 2^31 wraps alike on
   * both sides).
   */
  #pending(): boolean {
    return this.#answered !== undefined && Atomics.load(this.#answered, 0) !== (this.#tickets | 0);
  }

  /** Answers the callers whose ticket a pass covered (every caller when `upTo` is left out). */
  #settle(error?: Error, upTo = Number.POSITIVE_INFINITY): void {
    const waiters = this.#waiters.filter((waiter) => waiter.ticket <= upTo);
    this.#waiters = this.#waiters.filter((waiter) => waiter.ticket > upTo);
    if (this.#waiters.length === 0) this.#worker?.unref();
    for (const waiter of waiters) {
      if (error) waiter.reject(error);
      else waiter.resolve();
    }
  }

  #fail(): void {
    this.#failed = true;
    this.#failedAt = Date.now();
    this.#answered = undefined;
    this.#worker = undefined;
    this.#settle(new Error("The search index thread failed"));
  }
}

/**
 * Empties the index attached as `search` when it does not belong to the database on `reader`: made
 * for another one (identity), or holding keys above the highest this one has given (its file is
 * newer than the database: a backup restored beside it). Throws before the migrations have run.
 */
function resetIfForeign(reader: Connection): void {
  const check = reader
    .prepare(
      `select (select version from content_versions where name = 'search_identity') as identity,
              coalesce((select seq from sqlite_sequence where name = 'post_search'), 0) as seq,
              (select value from search.search_state where name = 'identity') as indexed_identity,
              (select value from search.search_state where name = 'indexed_through') as through`,
    )
    .get() as { identity: number | null; seq: number; indexed_identity: number; through: number };
  if (check.identity === null) return;
  if (check.indexed_identity === check.identity && check.through <= check.seq) return;
  // A deferred transaction whose first statement writes the index file: `begin immediate` would
  // take the site file's write lock too (it locks every attached file), which this never writes.
  reader.exec("begin");
  try {
    reader.exec("insert into search.post_search_fts (post_search_fts) values ('delete-all')");
    reader
      .prepare("update search.search_state set value = 0 where name in ('indexed_through', 'swept_through')")
      .run();
    reader.prepare("update search.search_state set value = ? where name = 'identity'").run(check.identity);
    reader.exec("commit");
  } catch (error) {
    reader.exec("rollback");
    throw error;
  }
}

/** How long after a failure the thread is started again. */
const retryAfterMs = 5000;
