import { type Kysely, type Migration, sql } from "kysely";
import { EngineError } from "../errors.js";
import { dialectOf } from "./dialect.js";
import { migrations } from "./migrations/index.js";
import type { Database } from "./schema.js";

const journal = "quire_migrations";

/**
 * Applies every pending migration, in order, in one transaction; returns the names applied.
 *
 * Kysely's Migrator is not used because it introspects every table of every schema, which races
 * with another site's schema being dropped on a shared PostgreSQL server. This one reads only its
 * own journal table. Concurrent starts are serialised: an advisory lock per schema on PostgreSQL,
 * the write lock of the first journal write on SQLite.
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  all: Record<string, Migration> = migrations,
): Promise<string[]> {
  const dialect = dialectOf(db);
  // biome-ignore lint/suspicious/noExplicitAny: the journal is not part of the typed schema
  const raw = db as unknown as Kysely<any>;
  try {
    return await raw.transaction().execute(async (trx) => {
      if (dialect === "postgres") {
        await sql`select pg_advisory_xact_lock(hashtext(current_schema() || ${journal}))`.execute(trx);
      }
      await trx.schema
        .createTable(journal)
        .ifNotExists()
        .addColumn("name", "text", (column) => column.primaryKey())
        .addColumn("applied_at", "text", (column) => column.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
        .execute();
      if (dialect === "sqlite") {
        // Take SQLite's write lock before reading, so two processes cannot both apply a migration.
        await trx.deleteFrom(journal).where("name", "=", "").execute();
      }
      const done = new Set(
        (await trx.selectFrom(journal).select("name").execute()).map((row) => row.name as string),
      );
      const applied: string[] = [];
      for (const name of Object.keys(all).sort()) {
        if (done.has(name)) continue;
        await (all[name] as Migration).up(trx);
        await trx.insertInto(journal).values({ name }).execute();
        applied.push(name);
      }
      return applied;
    });
  } catch (err) {
    throw new EngineError(
      "CONFIGURATION_ERROR",
      `Database migration failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
