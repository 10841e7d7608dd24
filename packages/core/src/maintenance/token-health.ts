import { tokenFigures } from "../auth/token-maintenance.js";
import { defineOperation } from "../operation.js";
import { tokenHealthInput, tokenHealthOutput } from "./maintenance-schemas.js";

const daySeconds = 24 * 60 * 60;

/**
 * Figures about the site's API tokens: how many, how many active or stale (not used for
 * `staleDays`), never used, and the oldest and newest use. Secrets never appear.
 * @see docs/internal-admin.md § Token health
 */
export const tokenHealth = defineOperation({
  id: "tokens.health",
  access: "internal",
  description: "Counts API tokens: active, stale (unused for staleDays), never used; oldest and newest use.",
  hints: { readOnly: true },
  input: tokenHealthInput,
  output: tokenHealthOutput,
  run: async (ctx, input) => {
    const staleBefore = ctx.clock.now() - input.staleDays * daySeconds;
    return { ...(await tokenFigures(ctx, staleBefore)), staleDays: input.staleDays, staleBefore };
  },
});
