import type { Kysely } from "kysely";

/**
 * Owner sign-in: `owner_credentials` holds the site owner's password hash (one row, id `owner`),
 * `sessions` the browser sessions, keyed by the SHA-256 of the session's random secret (the secret
 * itself is never stored), with an absolute expiry. Signing out deletes the row. @see
 * docs/authentication.md
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("owner_credentials")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("sessions")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("sessions_expires_at").on("sessions").column("expires_at").execute();
}
