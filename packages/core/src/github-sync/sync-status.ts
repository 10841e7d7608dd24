import { defineOperation } from "../operation.js";
import { readConnection, statusView } from "./connection.js";
import { noInput, syncStatusOutput } from "./github-sync-schemas.js";

/** The connection as the owner sees it: repository, branch, hook, last sync and its error; never the token or secret. */
export const syncStatus = defineOperation({
  id: "githubSync.status",
  access: "owner",
  description: "Shows the GitHub connection: repository, branch, webhook and the last outbound sync.",
  hints: { readOnly: true, idempotent: true },
  input: noInput,
  output: syncStatusOutput,
  run: async (ctx) => statusView(await readConnection(ctx.db)),
});
