import { resolve } from "node:path";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  type SqliteDialectConfig,
} from "kysely";

/** Options for {@link FileSqliteDialect}. */
export interface FileSqliteDialectConfig extends SqliteDialectConfig {
  file: string;
  /**
   * Threads that work on the file beside the engine, told after each use of the connection and
   * closed with it: WAL checkpoints (db/wal-checkpointer.ts), the search index
   * (search/sqlite-search-index.ts).
   */
  helpers?: readonly FileHelper[];
  /**
   * Runs once the driver has closed its connection and its helpers, whichever Kysely instance
   * sharing the driver was destroyed (one made by `withSchema` or `withPlugin` included).
   */
  afterClose?: () => void;
  /**
   * How long a statement waits for a lock another process holds (a transaction's begin for the
   * write lock, mostly), in milliseconds, on timers (see {@link FileSqliteDialect}). Default: the
   * connection's `busy_timeout` at its first use, which the dialect then sets to 0.
   */
  busyTimeoutMs?: number;
  /** How long a transaction runs before its commit counts as a long one (default {@link longTransactionMs}). */
  longTransactionMs?: number;
}

/** A thread working on the file beside the engine: see {@link FileSqliteDialectConfig.helpers}. */
export interface FileHelper {
  /** After each use of the connection. */
  poke(): void;
  /**
   * Before the commit of a transaction that has run for {@link longTransactionMs} or more (or the
   * dialect's own `longTransactionMs`); the function returned, if any, runs once the commit is over.
   */
  beforeLongCommit?(): (() => void) | undefined;
  close(): Promise<void>;
}

/**
 * How long a transaction runs before its commit is treated as a large one (a restore, a bulk
 * create): a post create's takes about a millisecond. Only the WAL checkpointer looks at it, to keep
 * the checkpoint of a large commit off the engine's thread (db/wal-checkpointer.ts).
 */
export const longTransactionMs = 25;

/**
 * Kysely's SQLite dialect for a database file that several engines may write at once (two server
 * processes, or two engines in one process):
 * - every transaction begins IMMEDIATE: it takes the file's write lock at its start, waiting for it
 *   up to `busyTimeoutMs`. A deferred transaction that read first cannot upgrade to a writer once
 *   another connection has written; WAL answers `SQLITE_BUSY` at once, whatever the timeout.
 * - connections to one file in one process take turns, in a queue in memory: one waits for another
 *   of its process without polling the file's lock (in SQLite's busy handler, which better-sqlite3
 *   runs on the event loop, it would block the loop the lock's holder needs to finish).
 * - a statement waits for another process's lock without blocking the event loop. The connection
 *   runs with `busy_timeout` 0, and a statement outside a transaction (a `begin immediate`, most
 *   often) that SQLite answers `SQLITE_BUSY` is run again after the delays of SQLite's own busy
 *   handler, on timers, up to `busyTimeoutMs`. With `busy_timeout` alone, better-sqlite3 sleeps in
 *   SQLite's handler on the event loop, and the worker answers nothing else, cached pages included,
 *   until the other worker's write ends. Inside a transaction the write lock is held, and nothing
 *   waits for another writer.
 * @see docs/reliability.md
 */
export class FileSqliteDialect extends SqliteDialect {
  readonly #file: string | undefined;
  readonly #helpers: NonNullable<FileSqliteDialectConfig["helpers"]>;
  readonly #longTransactionMs: number;
  readonly #afterClose: (() => void) | undefined;
  readonly #busyTimeoutMs: number | undefined;

  constructor(config: FileSqliteDialectConfig) {
    super(config);
    this.#file = config.file === ":memory:" || config.file === "" ? undefined : resolve(config.file);
    this.#helpers = config.helpers ?? [];
    this.#longTransactionMs = config.longTransactionMs ?? longTransactionMs;
    this.#afterClose = config.afterClose;
    this.#busyTimeoutMs = config.busyTimeoutMs;
  }

  override createDriver(): Driver {
    const inner = super.createDriver();
    const file = this.#file;
    const helpers = this.#helpers;
    const longAfterMs = this.#longTransactionMs;
    const afterClose = this.#afterClose;
    const configuredBusyTimeoutMs = this.#busyTimeoutMs;
    const released = new WeakMap<DatabaseConnection, () => void>();
    // One connection (better-sqlite3 is synchronous): when its transaction began.
    let begunAt = 0;
    // The connection as the engine sees it: statements that meet another process's lock wait on
    // timers (see the class comment). Made at the first use, once `busy_timeout` is read and set to 0.
    let waiting: DatabaseConnection | undefined;
    let inTransaction = false;
    const lockWaiting = async (connection: DatabaseConnection): Promise<DatabaseConnection> => {
      if (waiting) return waiting;
      const timeoutMs = configuredBusyTimeoutMs ?? (await busyTimeoutOf(connection));
      await connection.executeQuery(noBusyTimeout);
      const wrapped: DatabaseConnection = {
        executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
          // Inside a transaction the write lock is held: nothing there waits for another writer.
          if (inTransaction) return connection.executeQuery<R>(query);
          // Kysely's SQLite connection throws a statement's error as it calls it, not in the promise.
          try {
            return connection
              .executeQuery<R>(query)
              .catch((error) => retryWhileBusy<R>(error, connection, query, timeoutMs));
          } catch (error) {
            return retryWhileBusy<R>(error, connection, query, timeoutMs);
          }
        },
        streamQuery: (query, chunkSize) =>
          streamWaitingForLock(connection, query, chunkSize, timeoutMs, () => inTransaction),
      };
      waiting = wrapped;
      return wrapped;
    };
    return {
      init: () => inner.init(),
      acquireConnection: async () => {
        const release = file === undefined ? noop : await takeTurn(file);
        try {
          const connection = await inner.acquireConnection();
          const usable = file === undefined ? connection : await lockWaiting(connection);
          released.set(usable, release);
          return usable;
        } catch (err) {
          release();
          throw err;
        }
      },
      beginTransaction: async (connection) => {
        await connection.executeQuery(beginImmediate);
        inTransaction = true;
        begunAt = performance.now();
      },
      commitTransaction: async (connection) => {
        const after =
          performance.now() - begunAt < longAfterMs
            ? nothingAfter
            : helpers.map((helper) => helper.beforeLongCommit?.());
        try {
          await inner.commitTransaction(connection);
          inTransaction = false;
        } finally {
          for (const done of after) done?.();
        }
      },
      rollbackTransaction: async (connection) => {
        try {
          await inner.rollbackTransaction(connection);
        } finally {
          // Also when SQLite had already undone the transaction ("no transaction is active").
          inTransaction = false;
        }
      },
      savepoint: (connection, name, compile) =>
        callOptional(inner.savepoint, inner, connection, name, compile),
      rollbackToSavepoint: (connection, name, compile) =>
        callOptional(inner.rollbackToSavepoint, inner, connection, name, compile),
      releaseSavepoint: (connection, name, compile) =>
        callOptional(inner.releaseSavepoint, inner, connection, name, compile),
      releaseConnection: async (connection) => {
        try {
          await inner.releaseConnection(connection);
        } finally {
          released.get(connection)?.();
          released.delete(connection);
          for (const helper of helpers) helper.poke();
        }
      },
      destroy: async () => {
        try {
          await Promise.all(helpers.map((helper) => helper.close()));
          await inner.destroy();
        } finally {
          afterClose?.();
        }
      },
    };
  }
}

/** What runs after a short transaction's commit: nothing (one array, not one per commit). */
const nothingAfter: readonly ((() => void) | undefined)[] = [];

const beginImmediate = CompiledQuery.raw("begin immediate");
const noBusyTimeout = CompiledQuery.raw("pragma busy_timeout = 0");

/**
 * The delays between tries of SQLite's default busy handler (`sqliteDefaultBusyCallback` in
 * main.c), in milliseconds; the last one repeats.
 */
const busyDelays = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/** The connection's `busy_timeout`, in milliseconds. */
async function busyTimeoutOf(connection: DatabaseConnection): Promise<number> {
  const { rows } = await connection.executeQuery<{ timeout: number }>(
    CompiledQuery.raw("pragma busy_timeout"),
  );
  return rows[0]?.timeout ?? 0;
}

/**
 * After a try that met another connection's lock: waits the next of SQLite's busy-handler delays,
 * on a timer rather than in a sleep of the calling thread, or rethrows `error` once `timeoutMs`
 * have passed since `started` (or when it is not a lock's answer), as the busy handler would.
 */
async function waitAfterBusy(
  error: unknown,
  attempt: number,
  started: number,
  timeoutMs: number,
): Promise<void> {
  const left = timeoutMs - (performance.now() - started);
  if (!isLockBusy(error) || left <= 0) throw error;
  const delay = busyDelays[Math.min(attempt, busyDelays.length - 1)] as number;
  await new Promise((resolve) => setTimeout(resolve, Math.min(delay, left)));
}

/**
 * Runs `query` again while SQLite answers `SQLITE_BUSY` (the connection's `busy_timeout` is 0, so
 * it answers at once). A statement that met a lock changed nothing, so it can be run again.
 */
async function retryWhileBusy<R>(
  error: unknown,
  connection: DatabaseConnection,
  query: CompiledQuery,
  timeoutMs: number,
): Promise<QueryResult<R>> {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    await waitAfterBusy(error, attempt, started, timeoutMs);
    try {
      return await connection.executeQuery<R>(query);
    } catch (next) {
      error = next;
    }
  }
}

/** A streamed query, begun again while it meets a lock before its first row (see {@link retryWhileBusy}). */
async function* streamWaitingForLock<R>(
  connection: DatabaseConnection,
  query: CompiledQuery,
  chunkSize: number | undefined,
  timeoutMs: number,
  inTransaction: () => boolean,
): AsyncIterableIterator<QueryResult<R>> {
  const started = performance.now();
  for (let attempt = 0; ; attempt++) {
    const rows = connection.streamQuery<R>(query, chunkSize);
    let first: IteratorResult<QueryResult<R>>;
    try {
      first = await rows.next();
    } catch (error) {
      if (inTransaction()) throw error;
      await waitAfterBusy(error, attempt, started, timeoutMs);
      continue;
    }
    if (first.done) return;
    try {
      yield first.value;
      yield* rows;
    } finally {
      // A consumer that stops at the first row leaves `rows` open (and its statement busy) otherwise.
      await rows.return?.(undefined);
    }
    return;
  }
}

/** SQLite's answer while another connection holds the lock (or recovers the WAL): try again later. */
function isLockBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_BUSY" || code === "SQLITE_BUSY_RECOVERY";
}

type SavepointMethod = Driver["savepoint"];

async function callOptional(
  method: SavepointMethod,
  inner: Driver,
  ...args: Parameters<NonNullable<SavepointMethod>>
): Promise<void> {
  if (!method) throw new Error("The SQLite driver has no savepoints");
  await method.apply(inner, args);
}

/**
 * Does nothing; one function made once. (A closure made per call would also cost a `__name` call
 * each time under tsx, which keeps function names, as the reference server runs the source.)
 */
function noop(): void {}

/** Each database file's queue in this process: its last turn and how many turns are taken or waiting. */
const queues = new Map<string, { tail: Promise<void>; turns: number }>();

/** Waits for the file's turn in this process; call the returned function to pass it on. */
async function takeTurn(file: string): Promise<() => void> {
  const queue = queues.get(file) ?? { tail: Promise.resolve(), turns: 0 };
  queues.set(file, queue);
  const before = queue.tail;
  let pass = noop;
  queue.tail = new Promise<void>((resolve) => {
    pass = resolve;
  });
  queue.turns++;
  await before;
  return () => {
    queue.turns--;
    if (queue.turns === 0) queues.delete(file);
    pass();
  };
}
