import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import { registerSearchIndex } from "../search/search-index-registry.js";
import { SqliteSearchIndex } from "../search/sqlite-search-index.js";
import { registerChangeProbe } from "./change-probe.js";
import { defaultNamedStatementsPerConnection, namedStatements } from "./pg-named.js";
import { registerReadSnapshot } from "./read-snapshot.js";
import type { Database } from "./schema.js";
import { FileSqliteDialect } from "./sqlite-dialect.js";
import { cachedStatements, defaultStatementCacheSize } from "./statement-cache.js";
import { registerVersionConnection, VersionConnection } from "./version-connection.js";
import { WalCheckpointer } from "./wal-checkpointer.js";
import { WalIndexProbe } from "./wal-index-probe.js";

/** How long a SQLite write waits for another process's write lock by default, in milliseconds. */
const defaultBusyTimeoutMs = 5000;

/** Options for {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** A SQLite file path (or `sqlite:` / `file:` URL, or `:memory:`), or a `postgres://` URL. */
  url: string;
  /** PostgreSQL only: the schema to use (one schema per site); created when missing. */
  schema?: string;
  /**
   * PostgreSQL only: pool size (default 10). One more connection, outside the pool, serves the
   * site version read every request makes (db/version-connection.ts).
   */
  poolSize?: number;
  /** PostgreSQL only: hears about idle connections the server dropped (the pool replaces them). */
  onError?: (error: Error) => void;
  /**
   * Prepared statements kept per connection, by SQL text; 0 prepares every query anew.
   * SQLite: an LRU of better-sqlite3 statements (default 200; db/statement-cache.ts).
   * PostgreSQL: named prepared statements, at most this many texts per connection (default 100;
   * db/pg-named.ts). Set 0 behind a transaction-mode pooler that does not keep prepared statements
   * (PgBouncer before 1.21 or without `max_prepared_statements`).
   */
  statementCacheSize?: number;
  /**
   * SQLite only: how long a write waits for the file's write lock while another process (another
   * worker of the reference server) writes, in milliseconds (default 5,000); then it fails with
   * `SQLITE_BUSY`, which the engine answers as 409 `CONFLICT`. The wait is on timers, so the event
   * loop goes on meanwhile (db/sqlite-dialect.ts); the connection's own `busy_timeout` is 0.
   */
  busyTimeoutMs?: number;
  /**
   * SQLite file only: WAL checkpoints in a worker thread with its own connection, once the WAL has
   * grown past `afterBytes` (default 4 MiB), instead of in the commit that crosses SQLite's
   * threshold on the event loop (db/wal-checkpointer.ts, docs/scaling.md). Default on; `false`
   * leaves them to SQLite.
   */
  backgroundCheckpoints?: boolean | { afterBytes?: number; intervalMs?: number };
  /**
   * SQLite file only: the search index (FTS5 trigram) kept in `<file>-search` by a worker thread,
   * outside the writes' transactions, once `afterRows` rows (default 100) wait to be indexed;
   * searches scan the rows it has not read yet, so they stay exact (search/sqlite-search-index.ts,
   * docs/search.md). Default on; `false` leaves search to a scan of every row, as on a Kysely
   * instance built by hand.
   */
  searchIndex?: boolean | { afterRows?: number; intervalMs?: number; batchRows?: number };
}

/**
 * Opens a Kysely database for a SQLite file (better-sqlite3: WAL, busy timeout, foreign keys on;
 * transactions take the write lock at their start, see {@link FileSqliteDialect}; each SQL text is
 * prepared once, see {@link cachedStatements})
 * or a PostgreSQL URL (node-postgres; integer columns read as numbers; queries with parameters run
 * as named prepared statements, see {@link namedStatements}). The drivers are optional
 * peer dependencies loaded on demand, so core stays loadable where neither exists.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Kysely<Database>> {
  return /^postgres(ql)?:\/\//.test(options.url) ? openPostgres(options) : openSqlite(options);
}

async function openSqlite(options: OpenDatabaseOptions): Promise<Kysely<Database>> {
  const { default: SQLite } = await import("better-sqlite3");
  const filename = options.url.replace(/^sqlite:(\/\/)?/, "").replace(/^file:(\/\/)?/, "");
  const busyTimeoutMs = options.busyTimeoutMs ?? defaultBusyTimeoutMs;
  if (!Number.isSafeInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new Error(`busyTimeoutMs must be a whole number of milliseconds, 0 or more: ${busyTimeoutMs}`);
  }
  const sqlite = new SQLite(filename);
  const wal = sqlite.pragma("journal_mode = WAL", { simple: true }) === "wal";
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("synchronous = NORMAL");
  // Statement journals in memory: a post insert (counter triggers, 17 indexes) journals ~26 pages,
  // past SQLite's 64 KiB in-memory limit, and wrote a temporary file per create (docs/scaling.md:
  // ~27 pages when measured, before migration 017 dropped an index).
  sqlite.pragma("temp_store = MEMORY");
  const database = cachedStatements(sqlite, options.statementCacheSize ?? defaultStatementCacheSize);
  const onDisk = filename !== "" && filename !== ":memory:";
  const driverPath = () => createRequire(import.meta.url).resolve("better-sqlite3");
  const checkpointer =
    onDisk && options.backgroundCheckpoints !== false
      ? new WalCheckpointer({
          file: resolve(filename),
          driverPath,
          main: sqlite,
          ...(typeof options.backgroundCheckpoints === "object" ? options.backgroundCheckpoints : {}),
        })
      : undefined;
  const searchIndex =
    onDisk && options.searchIndex !== false
      ? new SqliteSearchIndex({
          file: resolve(filename),
          driverPath,
          // Not `fileMustExist`: an attached file is opened with the main file's flags, and the index file may be new.
          connect: (file) => new SQLite(file),
          ...(typeof options.searchIndex === "object" ? options.searchIndex : {}),
        })
      : undefined;
  const helpers = [checkpointer, searchIndex].filter((helper) => helper !== undefined);
  // What lets the site version be known unchanged without a query (db/wal-index-probe.ts). SQLite
  // keeps `-shm` beside the file a symbolic link points to, so the probe looks there too; a path
  // that cannot be resolved gets no probe (the version is then read every time).
  const probe = onDisk && wal ? walIndexProbe(filename) : undefined;
  // The probe closes last, once no connection of this database is left to hold a lock on the file
  // (db/wal-index-probe.ts: closing a descriptor drops the process's POSIX locks on the file): after
  // the driver's connection and threads, whichever instance sharing the driver is destroyed.
  const db = new Kysely<Database>({
    dialect: new FileSqliteDialect({
      database,
      file: filename,
      helpers,
      busyTimeoutMs,
      afterClose: () => probe?.close(),
    }),
  });
  // Kysely's destroy() closes a driver only once it has run a query, so the threads beside the file
  // and the probe are also closed here for a database destroyed before its first query (closing
  // twice is a no-op).
  const destroy = db.destroy.bind(db);
  db.destroy = async () => {
    try {
      await destroy();
      await Promise.all(helpers.map((helper) => helper.close()));
    } finally {
      probe?.close();
    }
  };
  if (probe) registerChangeProbe(db, probe);
  if (searchIndex) {
    searchIndex.open();
    registerSearchIndex(db, searchIndex);
  }
  if (onDisk) {
    // A second connection to the file, in a read transaction: a snapshot that leaves the engine's
    // own connection free (db/read-snapshot.ts).
    registerReadSnapshot(db, async () => {
      const reader = new SQLite(filename, { fileMustExist: true });
      try {
        reader.pragma(`busy_timeout = ${busyTimeoutMs}`);
        reader.pragma("query_only = 1");
        reader.exec("begin");
        // WAL: the snapshot is taken by the transaction's first read, here rather than at the caller's.
        reader.prepare("select count(*) from sqlite_master").get();
      } catch (error) {
        reader.close();
        throw error;
      }
      const snapshot = new Kysely<Database>({ dialect: new SqliteDialect({ database: reader }) });
      return {
        db: snapshot,
        end: async () => {
          reader.exec("rollback");
          await snapshot.destroy();
        },
      };
    });
  }
  return db;
}

function walIndexProbe(filename: string): WalIndexProbe | undefined {
  try {
    return new WalIndexProbe(realpathSync(resolve(filename)));
  } catch {
    return undefined;
  }
}

async function openPostgres(options: OpenDatabaseOptions): Promise<Kysely<Database>> {
  const { default: pg } = await import("pg");
  const parseInteger = (text: string) => Number.parseInt(text, 10);
  const types = {
    getTypeParser: (oid: number, format?: "text" | "binary") =>
      oid === 20 ? parseInteger : oid === 1700 ? Number : pg.types.getTypeParser(oid, format ?? "text"),
  };
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new Error(`Invalid PostgreSQL schema name: ${schema}`);
  }
  const connection = {
    connectionString: options.url,
    types,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 10 });
  // An idle client the server drops (restart, idle timeout) is only discarded by the pool; without
  // a listener the 'error' event would crash the process.
  const onError = options.onError ?? (() => {});
  pool.on("error", onError);
  // The pool listens to idle clients only: a connection dropped while checked out (mid-transaction,
  // say pg_terminate_backend) also emits 'error' after failing its query, and would crash the process.
  // The query's own error reaches the caller; the pool discards the dead client on release.
  pool.on("connect", (client) => {
    client.on("error", onError);
  });
  if (schema) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const perConnection = options.statementCacheSize ?? defaultNamedStatementsPerConnection;
  const prepared = perConnection > 0 ? namedStatements(pool, { maxPerConnection: perConnection }) : pool;
  // The site version read, which every request makes, on a connection of its own
  // (db/version-connection.ts); opened at the first read, closed with the pool.
  const versions = new VersionConnection({
    newClient: () => new pg.Client({ ...connection, application_name: "quire-site-version" }),
    named: perConnection > 0,
    onError,
  });
  // The driver ends the pool when any Kysely instance sharing it is destroyed, one derived from
  // `db` (`withSchema`, `withPlugin`, …) too; the version connection ends with it.
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: {
        connect: () => prepared.connect(),
        end: async () => {
          await versions.close();
          await prepared.end();
        },
      },
    }),
  });
  registerVersionConnection(db, versions);
  // Kysely's destroy() ends the pool only once a query has run; the version connection may have
  // been opened before that (closing twice is a no-op).
  const destroy = db.destroy.bind(db);
  db.destroy = async () => {
    await versions.close();
    await destroy();
  };
  return db;
}
