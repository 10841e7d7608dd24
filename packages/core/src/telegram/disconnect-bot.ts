import { defineOperation } from "../operation.js";
import { apiFor, readBot } from "./bot-config.js";
import { noInput, statusOutput } from "./telegram-schemas.js";
import { statusOf } from "./telegram-status.js";

/**
 * Disconnects the bot: asks Telegram to stop delivering (`deleteWebhook`; a failure is logged, not
 * fatal: the stored secret is gone, so any later delivery answers 404), then forgets the token,
 * the secret, the bound chats, the bind codes and the albums. The log of received update IDs
 * stays. Disconnecting when no bot is connected does nothing.
 */
export const disconnectBot = defineOperation({
  id: "telegram.disconnect",
  access: "owner",
  description: "Disconnects the Telegram bot: removes its webhook and forgets its token and bound chats.",
  hints: { destructive: true, idempotent: true },
  input: noInput,
  output: statusOutput,
  run: async (ctx) => {
    const bot = await readBot(ctx.db);
    if (bot) {
      try {
        await apiFor(bot).deleteWebhook();
      } catch (err) {
        ctx.logger.warn("telegram: deleteWebhook failed while disconnecting", {
          error: err instanceof Error ? err.message : String(err),
        });
      }
      await ctx.db.transaction().execute(async (trx) => {
        await trx.deleteFrom("telegram_bot").execute();
        await trx.deleteFrom("telegram_chats").execute();
        await trx.deleteFrom("telegram_bind_codes").execute();
        await trx.deleteFrom("telegram_albums").execute();
      });
    }
    return statusOf(ctx.db, ctx.clock.now());
  },
});
