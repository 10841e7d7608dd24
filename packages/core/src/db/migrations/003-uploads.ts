import type { Kysely } from "kysely";

/**
 * Upload sessions and the parts of multipart relays. A session row outlives its upload for a day
 * (so late writes answer 409 or 400 rather than 404), then cleanup removes it.
 * @see spec § Upload session, docs/media.md § Cleanup
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("upload_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("transport", "text", (c) => c.notNull())
    .addColumn("filename", "text", (c) => c.notNull())
    .addColumn("mime_type", "text", (c) => c.notNull())
    .addColumn("media_kind", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("checksum_sha256", "text")
    .addColumn("media_id", "text", (c) => c.notNull())
    .addColumn("storage_key", "text", (c) => c.notNull())
    .addColumn("poster_key", "text")
    .addColumn("multipart_upload_id", "text")
    .addColumn("part_size", "bigint")
    .addColumn("received_size", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  // Cleanup walks open sessions past their expiry, and finished ones past their retention.
  await db.schema
    .createIndex("upload_sessions_expiry")
    .on("upload_sessions")
    .columns(["state", "expires_at"])
    .execute();

  await db.schema
    .createTable("upload_parts")
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("part_number", "integer", (c) => c.notNull())
    .addColumn("etag", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("upload_parts_pk", ["session_id", "part_number"])
    .execute();
}
