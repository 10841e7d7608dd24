import type { Kysely } from "kysely";

/**
 * `GET /api/custom-urls` pages newest first by (`created_at`, `id`): an index in that order keeps
 * every page an index range scan. @see docs/custom-urls.md § Listing
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex("custom_urls_created")
    .on("custom_urls")
    .columns(["created_at", "id"])
    .execute();
}
