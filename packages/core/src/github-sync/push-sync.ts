import { EngineError } from "../errors.js";
import { defineOperation } from "../operation.js";
import { readConnection } from "./connection.js";
import { GithubError } from "./github-client.js";
import { noInput, pushSyncOutput } from "./github-sync-schemas.js";
import { pushExport, recordPushError } from "./push-export.js";

/**
 * The outbound sync now, instead of after the quiet time that follows writes: one commit of the
 * Hugo export on top of the branch, or none when the repository already matches.
 */
export const pushSync = defineOperation({
  id: "githubSync.push",
  access: "owner",
  description: "Commits the site's Hugo export to the connected repository now (none when nothing changed).",
  hints: { idempotent: true },
  input: noInput,
  output: pushSyncOutput,
  run: async (ctx) => {
    const row = await readConnection(ctx.db);
    if (!row) throw new EngineError("NOT_FOUND", "No code-host sync is set up on this site");
    try {
      return await pushExport(ctx, row);
    } catch (err) {
      await recordPushError(ctx, err).catch(() => {});
      if (err instanceof GithubError)
        throw new EngineError("EXTERNAL_SERVICE_ERROR", `The code host failed: ${err.message}`);
      throw err;
    }
  },
});
