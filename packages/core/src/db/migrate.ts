import { type Kysely, type Migration, sql } from "kysely";
import { EngineError } from "../errors.js";
import { type Dialect, detectDialect } from "./dialect.js";
import { migrations } from "./migrations/index.js";
import type { Database } from "./schema.js";

const journal = "quire_migrations";

/**
 * Applies every pending migration, in order, in one transaction; returns the names applied.
 *
 * Kysely's Migrator is not used because it introspects every table of every schema, which races
 * with another site's schema being dropped on a shared PostgreSQL server. This one reads only its
 * own journal table. Concurrent starts are serialised by the dialect's migration lock.
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  all: Record<string, Migration> = migrations,
  dialect: Dialect = detectDialect(db),
): Promise<string[]> {
  // biome-ignore lint/suspicious/noExplicitAny: the journal is not part of the typed schema
  const raw = db as unknown as Kysely<any>;
  try {
    return await raw.transaction().execute(async (trx) => {
      const create = async () => {
        await trx.schema
          .createTable(journal)
          .ifNotExists()
          .addColumn("name", "text", (column) => column.primaryKey())
          .addColumn("applied_at", "text", (column) => column.notNull().defaultTo(sql`CURRENT_TIMESTAMP`))
          .execute();
      };
      // The lock is taken before the journal is read, so two processes cannot both apply a migration.
      await dialect.lockMigrations(trx, { name: journal, create });
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
