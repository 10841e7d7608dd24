import type { SqliteDatabase, SqliteStatement } from "kysely";

/** How many prepared statements a SQLite connection keeps by default (see {@link cachedStatements}). */
export const defaultStatementCacheSize = 200;

/** The part of a better-sqlite3 `Database` the cache needs. */
export interface PreparingDatabase {
  prepare(sql: string): SqliteStatement & { readonly busy?: boolean };
  close(): void;
}

/** A {@link SqliteDatabase} that prepares each SQL text once, and how often it did. */
export interface CachingSqliteDatabase extends SqliteDatabase {
  /** Statements prepared since opening (cache misses, busy statements included). */
  readonly prepared: number;
  /** Statements the cache holds now. */
  readonly size: number;
}

/**
 * Prepare once: wraps a better-sqlite3 connection so that Kysely's SQLite driver, which calls
 * `db.prepare(sql)` for every query it runs, gets the statement it prepared before for the same
 * SQL text instead of having SQLite parse and plan it again (and better-sqlite3 build and later
 * collect a new `Statement` object). The cache is an LRU of at most `size` statements, in a `Map`
 * kept in use order; the least recently used one is dropped (better-sqlite3 finalizes it when it is
 * collected). `size` 0 turns caching off.
 *
 * - Bounded because not every query has a fixed text: a list written as `in (?, ?, …)` has one
 *   text per length, and filters combine. The engine's hot paths use compiled statements
 *   (db/compiled.ts) whose text never varies, so they stay in the cache under any mix of traffic.
 * - Schema changes need nothing: SQLite re-prepares a statement whose schema changed the next time
 *   it runs (sqlite3_prepare_v3 statements answer SQLITE_SCHEMA to themselves, and better-sqlite3
 *   reads the column names of each result afresh), checked in statement-cache.test.ts.
 * - A statement still iterating (Kysely's `stream()`) is busy; a query of the same text meanwhile
 *   gets a fresh, uncached statement rather than an error.
 *
 * Why not upstream: Kysely's own SqliteDriver prepares per query by design and leaves caching to
 * the `database` object it is given (this is that object); better-sqlite3's author and users
 * recommend keeping statements (WiseLibs/better-sqlite3#110, #793), and other Kysely SQLite
 * dialects added the same bounded cache for the same reason (kaeawc/auto-mobile#2797).
 */
export function cachedStatements(
  database: PreparingDatabase,
  size: number = defaultStatementCacheSize,
): CachingSqliteDatabase {
  const statements = new Map<string, SqliteStatement & { readonly busy?: boolean }>();
  let prepared = 0;
  const prepare = (sql: string) => {
    prepared++;
    return database.prepare(sql);
  };
  return {
    get prepared() {
      return prepared;
    },
    get size() {
      return statements.size;
    },
    prepare(sql) {
      if (size <= 0) return prepare(sql);
      const cached = statements.get(sql);
      if (cached) {
        if (cached.busy) return prepare(sql);
        // Most recently used goes last.
        statements.delete(sql);
        statements.set(sql, cached);
        return cached;
      }
      const statement = prepare(sql);
      statements.set(sql, statement);
      if (statements.size > size) {
        const oldest = statements.keys().next().value as string;
        statements.delete(oldest);
      }
      return statement;
    },
    close() {
      statements.clear();
      database.close();
    },
  };
}
