// biome-ignore-all lint/suspicious/noExplicitAny: works on any database shape
import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import { EngineError } from "../errors.js";

/** The SQL dialects the engine runs on. */
export type DialectName = "sqlite" | "postgres";

/**
 * Every place where the engine's SQL or its drivers differ between dialects, behind one object
 * chosen once per engine. Operations ask `ctx.dialect`; nothing else branches on the dialect.
 * Search's candidate query (FTS5 trigram on SQLite, pg_trgm on PostgreSQL) is the one difference
 * kept beside its module: `findCandidates[ctx.dialect.name]` in search/search-query.ts.
 */
export interface Dialect {
  readonly name: DialectName;
  /**
   * True when a driver error is a unique-constraint violation. Knows the driver's error shape
   * (better-sqlite3's `code`, node-postgres's SQLSTATE), never the message text.
   */
  isUniqueViolation(err: unknown): boolean;
  /**
   * True when a write was undone because it met a concurrent one, through no fault of its input:
   * a detected deadlock or a serialization failure on PostgreSQL (SQLSTATE 40P01, 40001), a busy
   * timeout on SQLite (SQLITE_BUSY). Retrying the request can succeed.
   */
  isWriteConflict(err: unknown): boolean;
  /**
   * Makes sure the migration journal exists and takes a lock that the transaction `trx` holds until
   * it ends, so concurrent starts apply each migration once: PostgreSQL takes an advisory lock per
   * schema before creating the journal (two concurrent `CREATE TABLE IF NOT EXISTS` can collide);
   * SQLite creates it, then takes its one write lock with a write to it.
   */
  lockMigrations(trx: Kysely<any>, journal: { name: string; create(): Promise<void> }): Promise<void>;
  /**
   * Locks one row for the rest of the transaction `trx`, so writers that change what the row
   * summarises queue behind each other and each reads what the one before committed. PostgreSQL
   * reads the row `FOR UPDATE`; SQLite has nothing to do, since a write transaction holds the
   * file's one write lock from its first statement (see db/sqlite-dialect.ts) and WAL refuses a
   * stale one (`SQLITE_BUSY`) rather than let it write. A missing row locks nothing.
   */
  lockRow(trx: Kysely<any>, row: { table: string; id: string }): Promise<void>;
  /**
   * `query` as a read that locks the rows it finds for the rest of the transaction, as
   * {@link lockRow} locks one: `FOR UPDATE` on PostgreSQL, the query unchanged on SQLite. For a lock
   * whose row is found by the query itself (a post's Thread root, posts/thread-lock.ts), in one
   * statement; the query can be compiled once (db/compiled.ts hands its builder the dialect).
   */
  lockingRead<DB, TB extends keyof DB, O>(
    query: SelectQueryBuilder<DB, TB, O>,
  ): SelectQueryBuilder<DB, TB, O>;
  /**
   * A FROM item: `table` aliased `alias`, read through the index `index`. SQLite without `ANALYZE`
   * statistics cannot tell a small partial index from a large one with the same columns and may walk
   * the large one row by row (the site's pinned Threads through every root's activity entry), so it
   * is told: `"posts" as "r" indexed by "threads_pinned"` (an error if the query cannot use the
   * index, which tests would catch). PostgreSQL plans by its statistics: the plain table.
   */
  tableIndexedBy(table: string, alias: string, index: string): RawBuilder<unknown>;
  /**
   * True when every statement is a round trip to a server (PostgreSQL), false when it runs in this
   * process (SQLite). A read made of a few small parts (a Thread list's pinned section and the
   * rest) is one statement where round trips cost more than the statement's extra work, and
   * several where they do not (threads/list-roots.ts). With round trips, a plain Thread root's
   * create is also one statement, its other rows written by data-modifying `WITH` parts (which
   * PostgreSQL has and SQLite does not), outside a transaction (posts/create-write.ts).
   */
  readonly roundTrips: boolean;
}

const sqlite: Dialect = {
  name: "sqlite",
  isUniqueViolation: (err) =>
    errorCodeOf(err) === "SQLITE_CONSTRAINT_UNIQUE" || errorCodeOf(err) === "SQLITE_CONSTRAINT_PRIMARYKEY",
  // Busy past the timeout: another process held the write lock, or was recovering the WAL.
  isWriteConflict: (err) => errorCodeOf(err) === "SQLITE_BUSY" || errorCodeOf(err) === "SQLITE_BUSY_RECOVERY",
  lockMigrations: async (trx, journal) => {
    await journal.create();
    await trx.deleteFrom(journal.name).where("name", "=", "").execute();
  },
  lockRow: async () => {},
  lockingRead: (query) => query,
  tableIndexedBy: (table, alias, index) =>
    sql`${sql.table(table)} as ${sql.id(alias)} indexed by ${sql.id(index)}`,
  roundTrips: false,
};

const postgres: Dialect = {
  name: "postgres",
  isUniqueViolation: (err) => errorCodeOf(err) === "23505",
  isWriteConflict: (err) => errorCodeOf(err) === "40P01" || errorCodeOf(err) === "40001",
  lockMigrations: async (trx, journal) => {
    await sql`select pg_advisory_xact_lock(hashtext(current_schema() || ${journal.name}))`.execute(trx);
    await journal.create();
  },
  lockRow: async (trx, row) => {
    await postgres.lockingRead(trx.selectFrom(row.table).select("id").where("id", "=", row.id)).execute();
  },
  lockingRead: (query) => query.forUpdate(),
  tableIndexedBy: (table, alias) => sql`${sql.table(table)} as ${sql.id(alias)}`,
  roundTrips: true,
};

/** The dialect object for a name. */
export function dialectNamed(name: DialectName): Dialect {
  return name === "postgres" ? postgres : sqlite;
}

/**
 * The dialect a Kysely instance speaks, read from its adapter's capabilities rather than by
 * `instanceof`, so a host app's own copy of Kysely (or a dialect package built on Kysely's
 * PostgreSQL or SQLite adapter, such as PGlite's or D1's) is recognised too. Pass `dialect` to
 * `createEngine` to skip detection.
 */
export function detectDialect(db: Kysely<any>): Dialect {
  const adapter = db.getExecutor().adapter;
  if (adapter.supportsReturning && adapter.supportsTransactionalDdl) return postgres;
  if (adapter.supportsReturning) return sqlite;
  throw new EngineError(
    "CONFIGURATION_ERROR",
    "Unsupported SQL dialect: Quire runs on SQLite and PostgreSQL (pass `dialect` to createEngine for a custom driver)",
  );
}

function errorCodeOf(err: unknown): unknown {
  return typeof err === "object" && err !== null ? (err as { code?: unknown }).code : undefined;
}
