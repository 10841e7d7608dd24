import type { Kysely } from "kysely";

/**
 * Where background work resumes: upload cleanup's walk through the object store keeps its place
 * here, so each run looks at a bounded share of the files and the next run goes on from there.
 * @see docs/media.md § Cleanup
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("maintenance_cursors")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("position", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
}
