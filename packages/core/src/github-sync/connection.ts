import type { Kysely, Selectable } from "kysely";
import type { Database, GithubSyncConnectionTable } from "../db/schema.js";
import type { GithubRepo } from "./github-client.js";
import type { SyncStatus } from "./github-sync-schemas.js";

/** The connection row's fixed id: a site syncs with one repository. */
export const connectionId = "github";

export type ConnectionRow = Selectable<GithubSyncConnectionTable>;

/** The connection, or null when none is set up. */
export async function readConnection(db: Kysely<Database>): Promise<ConnectionRow | null> {
  const row = await db
    .selectFrom("github_sync_connection")
    .selectAll()
    .where("id", "=", connectionId)
    .executeTakeFirst();
  return row ?? null;
}

/** The repository a connection reaches, with its token. */
export function repoOf(row: ConnectionRow): GithubRepo {
  return { apiBaseUrl: row.api_base_url, owner: row.owner, repo: row.repo, token: row.token };
}

/** The status answer: everything but the token and the webhook secret. */
export function statusView(row: ConnectionRow | null): SyncStatus {
  if (!row) return { connected: false };
  return {
    connected: true,
    owner: row.owner,
    repo: row.repo,
    branch: row.branch,
    apiBaseUrl: row.api_base_url,
    webhookUrl: row.webhook_url,
    hookId: row.hook_id === null ? null : Number(row.hook_id),
    debounceSeconds: Number(row.debounce_ms) / 1000,
    lastSyncedCommit: row.last_synced_commit,
    lastSyncedAt: row.last_synced_at,
    lastError: row.last_error,
    lastErrorAt: row.last_error_at,
    createdAt: row.created_at,
  };
}

/** The text commits written by Quire carry; a push whose head commit carries it is skipped. */
export const syncMarker = "[quire-sync]";
