import { EngineError } from "../errors.js";
import { defineOperation } from "../operation.js";
import { connectionId, readConnection, repoOf, statusView } from "./connection.js";
import { createPushHook, deleteHook, getBranchHead, ownerError } from "./github-client.js";
import { setupSyncInput, syncStatusOutput } from "./github-sync-schemas.js";
import { schedulerOf } from "./sync-scheduler.js";

/**
 * Connects the site to a repository: checks that the token reaches the branch, registers a push
 * webhook with a new random secret, and stores the connection (replacing an earlier one, whose
 * hook is removed). The code host refusing the token or not finding the repository is a 400 naming
 * the field; the code host failing otherwise is 500 EXTERNAL_SERVICE_ERROR, with nothing stored.
 */
export const setupSync = defineOperation({
  id: "githubSync.setup",
  access: "owner",
  description:
    "Connects a GitHub repository with a token and registers its push webhook with a random secret.",
  hints: { idempotent: false },
  input: setupSyncInput,
  output: syncStatusOutput,
  run: async (ctx, input) => {
    const repo = {
      apiBaseUrl: input.apiBaseUrl,
      owner: input.owner,
      repo: input.repo,
      token: input.token,
    };
    const secret = ctx.ids.secret();
    let hookId: number;
    try {
      await getBranchHead(repo, input.branch);
      hookId = await createPushHook(repo, input.webhookUrl, secret);
    } catch (err) {
      throw ownerError(err);
    }
    const previous = await readConnection(ctx.db);
    const now = ctx.clock.now();
    const values = {
      api_base_url: input.apiBaseUrl,
      owner: input.owner,
      repo: input.repo,
      branch: input.branch,
      token: input.token,
      webhook_secret: secret,
      webhook_url: input.webhookUrl,
      hook_id: hookId,
      debounce_ms: Math.round(input.debounceSeconds * 1000),
      last_synced_commit: null,
      last_synced_at: null,
      last_error: null,
      last_error_at: null,
      updated_at: now,
    };
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("github_sync_connection")
        .values({ id: connectionId, created_at: now, ...values })
        .onConflict((oc) => oc.column("id").doUpdateSet(values))
        .execute();
      // Another repository (or the same one again): what the last sync wrote says nothing about it.
      await trx.deleteFrom("github_sync_files").execute();
    });
    schedulerOf(ctx)?.forgetConnection();
    if (previous?.hook_id != null) {
      // The earlier hook would deliver with a secret nobody holds any more; removing it is best effort.
      await deleteHook(repoOf(previous), Number(previous.hook_id)).catch((err: unknown) =>
        ctx.logger.warn("github sync: the earlier webhook could not be removed", { error: String(err) }),
      );
    }
    const row = await readConnection(ctx.db);
    if (!row) throw new EngineError("CONFLICT", "The connection was removed while it was being set up");
    return statusView(row);
  },
});
