import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { openDatabase } from "../db/open.js";
import type { Database } from "../db/schema.js";
import type { EngineConfig, Links, SiteSettings } from "../deps.js";
import { createEngine, type Engine } from "../engine.js";
import { sequentialIds } from "../shared/ids.js";
import { fixedClock } from "../shared/time.js";
import type { Storage } from "../storage.js";

/** The database the test suites run on: `QUIRE_TEST_DATABASE=postgres` with `QUIRE_TEST_PG_URL`, else SQLite. */
export function testDatabaseKind(): "sqlite" | "postgres" {
  return process.env.QUIRE_TEST_DATABASE === "postgres" ? "postgres" : "sqlite";
}

/** Where a test database lives: what `openDatabase` takes to open it again. */
export interface TestDatabaseLocation {
  url: string;
  schema?: string;
}

/**
 * A fresh database: a temp SQLite file, or a new schema on the test PostgreSQL server (a pool of
 * `poolSize` connections, default 4). `reopen` opens another handle on the same database, as a
 * second process would (the caller closes it); `location` lets another process open it.
 */
export async function openTestDatabase(options: { poolSize?: number } = {}): Promise<{
  db: Kysely<Database>;
  location: TestDatabaseLocation;
  reopen: () => Promise<Kysely<Database>>;
  cleanup: () => Promise<void>;
}> {
  if (testDatabaseKind() === "postgres") {
    const url = process.env.QUIRE_TEST_PG_URL;
    if (!url) throw new Error("QUIRE_TEST_DATABASE=postgres needs QUIRE_TEST_PG_URL");
    const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    const reopen = () => openDatabase({ url, schema, poolSize: options.poolSize ?? 4 });
    const db = await reopen();
    return {
      db,
      location: { url, schema },
      reopen,
      cleanup: async () => {
        await db.destroy();
        const admin = await openDatabase({ url, poolSize: 1 });
        await admin.schema.dropSchema(schema).ifExists().cascade().execute();
        await admin.destroy();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "quire-test-"));
  const file = join(dir, "quire.db");
  const reopen = () => openDatabase({ url: file });
  const db = await reopen();
  return {
    db,
    location: { url: file },
    reopen,
    cleanup: async () => {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A test engine on a fresh migrated database with a fixed clock and sequential IDs. */
export async function createTestEngine(
  options: {
    storage?: Storage;
    config?: Partial<EngineConfig>;
    settings?: Partial<SiteSettings>;
    links?: Links;
    now?: number;
    /** PostgreSQL connections in the engine's pool (default 4); concurrency tests want more. */
    poolSize?: number;
  } = {},
): Promise<{
  engine: Engine;
  clock: ReturnType<typeof fixedClock>;
  /** Another handle on the engine's database, for a second engine; the caller closes it. */
  reopen: () => Promise<Kysely<Database>>;
  /** Where the database lives, for an engine in another process. */
  location: TestDatabaseLocation;
  cleanup: () => Promise<void>;
}> {
  const { db, location, reopen, cleanup } = await openTestDatabase({ poolSize: options.poolSize });
  const clock = fixedClock(options.now);
  const engine = createEngine({
    db,
    clock,
    ids: sequentialIds(),
    storage: options.storage,
    config: options.config,
    settings: options.settings,
    links: options.links,
  });
  await engine.migrate();
  return { engine, clock, reopen, location, cleanup };
}

/**
 * The tables of an engine's own database (on PostgreSQL, its own schema), SQLite's internal ones
 * left out. Read from the catalogue by schema name rather than with Kysely's introspection, which
 * reads every schema's tables and fails when a concurrent test file drops its schema meanwhile.
 */
export async function tableNames(engine: Engine): Promise<string[]> {
  const db = engine.context.db;
  const rows =
    engine.context.dialect.name === "postgres"
      ? await sql<{ name: string }>`select c.relname as name from pg_catalog.pg_class c
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          where n.nspname = current_schema() and c.relkind in ('r', 'p')`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master
          where type = 'table' and name not like 'sqlite_%'`.execute(db);
  return rows.rows.map((row) => row.name);
}
