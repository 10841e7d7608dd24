import { resolve } from "node:path";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
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
 *   up to `busy_timeout`. A deferred transaction that read first cannot upgrade to a writer once
 *   another connection has written; WAL answers `SQLITE_BUSY` at once, whatever the timeout.
 * - connections to one file in one process take turns. better-sqlite3 waits for a lock
 *   synchronously, so a connection waiting for another of the same process would block the event
 *   loop its holder needs to finish.
 * @see docs/reliability.md
 */
export class FileSqliteDialect extends SqliteDialect {
  readonly #file: string | undefined;
  readonly #helpers: NonNullable<FileSqliteDialectConfig["helpers"]>;
  readonly #longTransactionMs: number;
  readonly #afterClose: (() => void) | undefined;

  constructor(config: FileSqliteDialectConfig) {
    super(config);
    this.#file = config.file === ":memory:" || config.file === "" ? undefined : resolve(config.file);
    this.#helpers = config.helpers ?? [];
    this.#longTransactionMs = config.longTransactionMs ?? longTransactionMs;
    this.#afterClose = config.afterClose;
  }

  override createDriver(): Driver {
    const inner = super.createDriver();
    const file = this.#file;
    const helpers = this.#helpers;
    const longAfterMs = this.#longTransactionMs;
    const afterClose = this.#afterClose;
    const released = new WeakMap<DatabaseConnection, () => void>();
    // One connection (better-sqlite3 is synchronous): when its transaction began.
    let begunAt = 0;
    return {
      init: () => inner.init(),
      acquireConnection: async () => {
        const release = file === undefined ? noop : await takeTurn(file);
        try {
          const connection = await inner.acquireConnection();
          released.set(connection, release);
          return connection;
        } catch (err) {
          release();
          throw err;
        }
      },
      beginTransaction: async (connection) => {
        await connection.executeQuery(CompiledQuery.raw("begin immediate"));
        begunAt = performance.now();
      },
      commitTransaction: async (connection) => {
        if (performance.now() - begunAt < longAfterMs) return inner.commitTransaction(connection);
        const after = helpers.map((helper) => helper.beforeLongCommit?.());
        try {
          await inner.commitTransaction(connection);
        } finally {
          for (const done of after) done?.();
        }
      },
      rollbackTransaction: (connection) => inner.rollbackTransaction(connection),
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
