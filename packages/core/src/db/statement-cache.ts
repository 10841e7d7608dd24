import type { SqliteDatabase, SqliteStatement } from "kysely";

/** How many prepared statements a SQLite connection keeps by default (see {@link cachedStatements}). */
export const defaultStatementCacheSize = 200;

/** The part of a better-sqlite3 `Statement` the cache uses; `raw` and `columns` where the driver has them. */
type PreparedStatement = SqliteStatement & {
  readonly busy?: boolean;
  raw?(toggle: boolean): unknown;
  columns?(): { name: string }[];
};

/** The part of a better-sqlite3 `Database` the cache needs. */
export interface PreparingDatabase {
  prepare(sql: string): PreparedStatement;
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
 * - A kept statement that reads rows answers them, from its second run on, through
 *   {@link withRowObjects}: the same objects, built faster.
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
  const statements = new Map<string, PreparedStatement>();
  // Statements run a second time: from then on they build their rows faster (withRowObjects).
  const reused = new WeakSet<PreparedStatement>();
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
        // A text run once costs no row builder (about 70 µs to make): many texts never come back.
        const statement = reused.has(cached) ? cached : withRowObjects(cached, sql);
        reused.add(statement);
        // Most recently used goes last.
        statements.delete(sql);
        statements.set(sql, statement);
        return statement;
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

/**
 * A statement that reads rows, answering them as better-sqlite3 would (one object per row, a
 * property per result column in column order, a later column of the same name winning), but
 * built faster: better-sqlite3 runs in raw mode (an array per row) and a function made once for
 * the statement's columns turns each array into an object literal. better-sqlite3 sets each
 * property of its own row objects through V8's C++ API, one call per column; an object literal
 * of a fixed shape costs next to nothing. Measured on the public Thread list's roots (16 rows of
 * 31 columns): 147–157 µs as better-sqlite3's objects, 85–95 µs this way (bench/README.md
 * § Threads › Row objects); better-sqlite3's raw mode came with the same finding (~60 % on
 * `all()`, WiseLibs/better-sqlite3#196).
 *
 * Only where the SQL text alone fixes the result's columns: a text with a `*` anywhere (`select
 * *`, `"p".*`, `count(*)`) keeps better-sqlite3's objects, because after a schema change SQLite
 * prepares such a statement again and its columns may change with it (see above). Also kept as
 * they are: a statement that writes (`run` answers no rows), a driver without raw mode, and a
 * column named `__proto__`, which an object literal would take for the prototype.
 */
function withRowObjects(statement: PreparedStatement, sql: string): PreparedStatement {
  if (!statement.reader || sql.includes("*") || !statement.raw || !statement.columns) return statement;
  const names = statement.columns().map((column) => column.name);
  if (names.includes("__proto__")) return statement;
  // JSON string literals are JavaScript string literals: any column name is quoted safely.
  const toObject = new Function(
    "row",
    `return { ${names.map((name, index) => `${JSON.stringify(name)}: row[${index}]`).join(", ")} };`,
  ) as (row: unknown[]) => unknown;
  statement.raw(true);
  return {
    reader: true,
    get busy() {
      return statement.busy;
    },
    all(parameters) {
      const rows = statement.all(parameters) as unknown[][] as unknown[];
      for (let index = 0; index < rows.length; index++) rows[index] = toObject(rows[index] as unknown[]);
      return rows;
    },
    run(parameters) {
      return statement.run(parameters);
    },
    iterate(parameters) {
      // Started now, as better-sqlite3's own iterator is: the statement is busy from this call on.
      const rows = statement.iterate(parameters);
      const objects: IterableIterator<unknown> = {
        next() {
          const step = rows.next();
          return step.done ? step : { done: false, value: toObject(step.value as unknown[]) };
        },
        return(value?: unknown) {
          return rows.return ? rows.return(value) : { done: true, value };
        },
        [Symbol.iterator]() {
          return objects;
        },
      };
      return objects;
    },
  };
}
