import { defineOperation } from "../operation.js";
import { connectionId, readConnection, repoOf, statusView } from "./connection.js";
import { deleteHook, GithubError } from "./github-client.js";
import { noInput, syncStatusOutput } from "./github-sync-schemas.js";
import { schedulerOf } from "./sync-scheduler.js";

/**
 * Disconnects: removes the webhook at the code host (one already gone counts as removed) and
 * forgets the connection, its token, its secret and the list of files the sync wrote; the
 * repository's files stay. When the code host cannot be reached the connection is forgotten
 * anyway (a webhook left behind is refused: its secret is gone) and the answer says so in
 * `lastError`. Disconnecting without a connection answers the same `{ connected: false }`.
 */
export const disconnectSync = defineOperation({
  id: "githubSync.disconnect",
  access: "owner",
  description: "Disconnects the GitHub repository: removes the webhook and forgets the token and secret.",
  hints: { destructive: true, idempotent: true },
  input: noInput,
  output: syncStatusOutput,
  run: async (ctx) => {
    const row = await readConnection(ctx.db);
    if (!row) return statusView(null);
    let hookError: string | null = null;
    if (row.hook_id !== null) {
      try {
        await deleteHook(repoOf(row), Number(row.hook_id));
      } catch (err) {
        if (!(err instanceof GithubError)) throw err;
        hookError = `The webhook could not be removed at the code host: ${err.message}`;
      }
    }
    await ctx.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("github_sync_connection").where("id", "=", connectionId).execute();
      await trx.deleteFrom("github_sync_files").execute();
    });
    schedulerOf(ctx)?.forgetConnection();
    return hookError === null ? statusView(null) : { connected: false, lastError: hookError };
  },
});
