import { purgeStaleTokens } from "../auth/token-maintenance.js";
import { defineOperation } from "../operation.js";
import { purgeTokensInput, purgeTokensOutput } from "./maintenance-schemas.js";

const daySeconds = 24 * 60 * 60;

/**
 * Deletes API tokens not used for `unusedDays` (never used ones count from their creation); with
 * `dryRun`, lists them and deletes nothing. Revoking a token already deletes it, so there are no
 * revoked tokens left to purge. @see docs/internal-admin.md § Token purge
 */
export const purgeTokens = defineOperation({
  id: "tokens.purge",
  access: "internal",
  description: "Deletes API tokens unused for unusedDays (dryRun: only lists them).",
  hints: { destructive: true, idempotent: true },
  input: purgeTokensInput,
  output: purgeTokensOutput,
  run: async (ctx, input) => {
    const cutoff = ctx.clock.now() - input.unusedDays * daySeconds;
    const tokens = await purgeStaleTokens(ctx, { cutoff, dryRun: input.dryRun });
    return { dryRun: input.dryRun, purged: tokens.length, tokens };
  },
});
