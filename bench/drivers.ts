import { createRequire } from "node:module";

// The drivers are dependencies of @quire/core (peer/dev), not of the workspace root: load them from there.
const requireFromCore = createRequire(new URL("../packages/core/package.json", import.meta.url));

/** The slice of a better-sqlite3 statement the benchmark calls. */
export interface SqliteStatement {
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
}

/** The slice of a better-sqlite3 database the benchmark calls. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  pragma(text: string): unknown;
  transaction<Args extends unknown[]>(fn: (...args: Args) => void): (...args: Args) => void;
  close(): void;
}

/** The slice of a node-postgres pool the benchmark calls. */
export interface PgPool {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: "error", listener: (err: Error) => void): unknown;
}

/** Opens a raw better-sqlite3 connection. */
export function openRawSqlite(file: string): SqliteDatabase {
  const SQLite = requireFromCore("better-sqlite3") as new (file: string) => SqliteDatabase;
  return new SQLite(file);
}

/** Opens a raw node-postgres pool on one schema, integers read as numbers (as the engine reads them). */
export function openRawPg(url: string, schema: string): PgPool {
  const pg = requireFromCore("pg") as {
    Pool: new (options: Record<string, unknown>) => PgPool;
    types: { getTypeParser(oid: number, format?: string): unknown };
  };
  const types = {
    getTypeParser: (oid: number, format?: string) =>
      oid === 20
        ? (text: string) => Number.parseInt(text, 10)
        : pg.types.getTypeParser(oid, format ?? "text"),
  };
  const pool = new pg.Pool({ connectionString: url, max: 2, types, options: `-c search_path=${schema}` });
  // An idle connection closed by the server (a throwaway server stopping) is not a benchmark failure.
  pool.on("error", () => {});
  return pool;
}
