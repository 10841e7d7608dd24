import { type Kysely, type MigrationProvider, Migrator, sql } from "kysely";
import { EngineError } from "../errors.js";
import { dialectOf } from "./dialect.js";
import { migrations } from "./migrations/index.js";
import type { Database } from "./schema.js";

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Applies every pending migration in order; returns the names applied. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  // On PostgreSQL the bookkeeping tables live in the site's own schema (one schema per site).
  const schema =
    dialectOf(db) === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider,
    ...(schema ? { migrationTableSchema: schema } : {}),
    migrationTableName: "quire_migrations",
    migrationLockTableName: "quire_migrations_lock",
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((result) => result.status === "Error");
    throw new EngineError(
      "CONFIGURATION_ERROR",
      `Database migration ${failed?.migrationName ?? ""} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return results.filter((result) => result.status === "Success").map((result) => result.migrationName);
}
