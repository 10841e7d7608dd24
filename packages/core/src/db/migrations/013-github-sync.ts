import type { Kysely } from "kysely";

/**
 * Code-host sync (docs/github-sync.md): one connection row (the repository, its branch, the access
 * token and the webhook's secret, the hook's id, the last commit Quire wrote), the files Quire last
 * wrote to the repository with their blob hashes (so an outbound sync uploads only what changed and
 * removes only its own files), and the log of webhook deliveries. A delivery is claimed by
 * inserting its `X-GitHub-Delivery` id; a push is claimed by its head commit as well: the two
 * unique keys are what turn a replayed delivery into a no-op, under concurrent deliveries too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("github_sync_connection")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("api_base_url", "text", (col) => col.notNull())
    .addColumn("owner", "text", (col) => col.notNull())
    .addColumn("repo", "text", (col) => col.notNull())
    .addColumn("branch", "text", (col) => col.notNull())
    .addColumn("token", "text", (col) => col.notNull())
    .addColumn("webhook_secret", "text", (col) => col.notNull())
    .addColumn("webhook_url", "text", (col) => col.notNull())
    .addColumn("hook_id", "bigint")
    .addColumn("debounce_ms", "integer", (col) => col.notNull())
    .addColumn("last_synced_commit", "text")
    .addColumn("last_synced_at", "bigint")
    .addColumn("last_error", "text")
    .addColumn("last_error_at", "bigint")
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .addColumn("updated_at", "bigint", (col) => col.notNull())
    .execute();
  await db.schema
    .createTable("github_sync_files")
    .addColumn("path", "text", (col) => col.primaryKey())
    .addColumn("blob_sha", "text", (col) => col.notNull())
    .execute();
  await db.schema
    .createTable("github_sync_deliveries")
    .addColumn("delivery_id", "text", (col) => col.primaryKey())
    .addColumn("event", "text", (col) => col.notNull())
    .addColumn("head_commit", "text", (col) => col.unique())
    .addColumn("outcome", "text", (col) => col.notNull())
    .addColumn("received_at", "bigint", (col) => col.notNull())
    .execute();
}
