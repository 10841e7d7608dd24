import {
  type DatabaseIntrospector,
  type DialectAdapter,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely";
import { describe, expect, it } from "vitest";
import { compiled } from "./compiled.js";
import { detectDialect, dialectNamed } from "./dialect.js";
import type { Database } from "./schema.js";

/** A Kysely-shaped object whose adapter is not an instance of this copy's classes, as a host app's own Kysely copy would be. */
function foreignKysely(adapter: { supportsReturning: boolean; supportsTransactionalDdl: boolean }) {
  return { getExecutor: () => ({ adapter: { ...adapter } }) } as unknown as Kysely<unknown>;
}

describe("the dialect seam", () => {
  it("detects the dialect from the adapter's capabilities, not from instanceof", () => {
    expect(
      detectDialect(foreignKysely({ supportsReturning: true, supportsTransactionalDdl: true })).name,
    ).toBe("postgres");
    expect(
      detectDialect(foreignKysely({ supportsReturning: true, supportsTransactionalDdl: false })).name,
    ).toBe("sqlite");
    // MySQL-like: no RETURNING — not a dialect Quire runs on.
    expect(() =>
      detectDialect(foreignKysely({ supportsReturning: false, supportsTransactionalDdl: false })),
    ).toThrow(expect.objectContaining({ code: "CONFIGURATION_ERROR" }));
  });

  it("agrees with Kysely's own adapters", () => {
    const adapters = { postgres: new PostgresAdapter(), sqlite: new SqliteAdapter() };
    for (const [name, adapter] of Object.entries(adapters)) {
      const db = { getExecutor: () => ({ adapter }) } as unknown as Kysely<unknown>;
      expect(detectDialect(db).name).toBe(name);
    }
  });

  it("knows each driver's write-conflict shapes (deadlock, serialization failure, busy) and nothing else", () => {
    const sqlite = dialectNamed("sqlite");
    const postgres = dialectNamed("postgres");
    expect(sqlite.isWriteConflict({ code: "SQLITE_BUSY" })).toBe(true);
    expect(sqlite.isWriteConflict({ code: "40P01" })).toBe(false);
    expect(postgres.isWriteConflict({ code: "40P01" })).toBe(true);
    expect(postgres.isWriteConflict({ code: "40001" })).toBe(true);
    expect(postgres.isWriteConflict({ code: "23505" })).toBe(false);
    expect(postgres.isWriteConflict(new Error("deadlock detected"))).toBe(false);
  });

  it("knows each driver's unique-violation shape and nothing else", () => {
    const sqlite = dialectNamed("sqlite");
    const postgres = dialectNamed("postgres");
    expect(sqlite.isUniqueViolation({ code: "SQLITE_CONSTRAINT_UNIQUE" })).toBe(true);
    expect(sqlite.isUniqueViolation({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" })).toBe(true);
    expect(sqlite.isUniqueViolation({ code: "23505" })).toBe(false);
    expect(postgres.isUniqueViolation({ code: "23505" })).toBe(true);
    expect(postgres.isUniqueViolation({ code: "SQLITE_CONSTRAINT_UNIQUE" })).toBe(false);
    for (const dialect of [sqlite, postgres]) {
      expect(dialect.isUniqueViolation(new Error("UNIQUE constraint failed"))).toBe(false);
      expect(dialect.isUniqueViolation(null)).toBe(false);
    }
  });

  it("makes a compiled read a locking read on PostgreSQL only (SQLite has no FOR UPDATE)", () => {
    const lockingRead = compiled<{ id: string }>()((db, p) =>
      p.dialect.lockingRead(db.selectFrom("posts").select("id").where("id", "=", p.value("id"))),
    );
    // Kysely without a database, as its recipe "Splitting query building and execution" builds one.
    const compiledOn = (parts: {
      adapter: DialectAdapter;
      compiler: QueryCompiler;
      introspector: new (db: Kysely<Database>) => DatabaseIntrospector;
    }) =>
      lockingRead.compile(
        new Kysely<Database>({
          dialect: {
            createAdapter: () => parts.adapter,
            createDriver: () => new DummyDriver(),
            createIntrospector: (db) => new parts.introspector(db),
            createQueryCompiler: () => parts.compiler,
          },
        }),
        { id: "post_1" },
      );
    const postgres = compiledOn({
      adapter: new PostgresAdapter(),
      compiler: new PostgresQueryCompiler(),
      introspector: PostgresIntrospector,
    });
    const sqlite = compiledOn({
      adapter: new SqliteAdapter(),
      compiler: new SqliteQueryCompiler(),
      introspector: SqliteIntrospector,
    });
    expect(postgres.sql).toBe('select "id" from "posts" where "id" = $1 for update');
    expect(sqlite.sql).toBe('select "id" from "posts" where "id" = ?');
    expect([postgres.parameters, sqlite.parameters]).toEqual([["post_1"], ["post_1"]]);
  });
});
