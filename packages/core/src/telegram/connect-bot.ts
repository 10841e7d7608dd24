import { conflict, EngineError, invalidField } from "../errors.js";
import { defineOperation } from "../operation.js";
import { BotApiError, botApi } from "./bot-api.js";
import { botRowId } from "./bot-config.js";
import { connectInput, statusOutput } from "./telegram-schemas.js";
import { statusOf } from "./telegram-status.js";

/** The update kinds the webhook asks Telegram for (docs/telegram.md § Updates). */
export const allowedUpdates = ["message", "channel_post"];

/**
 * Connects a bot: checks the token (`getMe`), registers the webhook with a new random secret
 * (`setWebhook` with `secret_token`, the update kinds read, one delivery at a time), then stores
 * the token, the secret and the addresses, replacing an earlier bot's (its bound chats stay
 * bound only when it is the same bot). A token Telegram refuses is a 400 naming `botToken`; an
 * address it refuses a 400 naming `webhookUrl`; no answer from the Bot API a 500
 * EXTERNAL_SERVICE_ERROR. Nothing is stored unless both calls succeeded.
 */
export const connectBot = defineOperation({
  id: "telegram.connect",
  access: "owner",
  description:
    "Connects a Telegram bot by its token and registers this site's webhook with a new random secret.",
  hints: { idempotent: false },
  input: connectInput,
  output: statusOutput,
  run: async (ctx, input) => {
    const api = botApi(input.apiBaseUrl, input.botToken);
    const secret = ctx.ids
      .secret()
      .replace(/[^A-Za-z0-9_-]/g, "")
      .slice(0, 256);
    let me: { id: number; username?: string };
    try {
      me = await api.getMe();
    } catch (err) {
      throw refusal(err, "botToken", "Telegram does not accept this bot token");
    }
    try {
      await api.setWebhook({
        url: input.webhookUrl,
        secret_token: secret,
        allowed_updates: allowedUpdates,
        max_connections: 1,
      });
    } catch (err) {
      throw refusal(err, "webhookUrl", "Telegram refused this webhook address");
    }
    const now = ctx.clock.now();
    await ctx.db
      .transaction()
      .execute(async (trx) => {
        await ctx.dialect.lockRow(trx, { table: "telegram_bot", id: botRowId });
        const previous = await trx
          .selectFrom("telegram_bot")
          .select("bot_token")
          .where("id", "=", botRowId)
          .executeTakeFirst();
        const sameBot = previous?.bot_token.split(":")[0] === input.botToken.split(":")[0];
        await trx.deleteFrom("telegram_bot").where("id", "=", botRowId).execute();
        if (!sameBot) {
          await trx.deleteFrom("telegram_chats").execute();
          await trx.deleteFrom("telegram_bind_codes").execute();
          await trx.deleteFrom("telegram_albums").execute();
        }
        await trx
          .insertInto("telegram_bot")
          .values({
            id: botRowId,
            bot_token: input.botToken,
            bot_username: me.username ?? null,
            webhook_secret: secret,
            webhook_url: input.webhookUrl,
            api_base_url: input.apiBaseUrl,
            connected_at: now,
          })
          .execute();
      })
      .catch((err) => {
        // Two connects at once: the first one's row stands.
        if (ctx.dialect.isUniqueViolation(err))
          throw conflict("Another connect of the bot ran at the same time; send it again");
        throw err;
      });
    return statusOf(ctx.db, now);
  },
});

/** A Bot API refusal as the owner's error: 400 naming the field it refused, else 500 external. */
function refusal(err: unknown, field: string, message: string): EngineError {
  if (err instanceof BotApiError && err.errorCode !== null && err.errorCode >= 400 && err.errorCode < 500) {
    return invalidField(field, `${message} (${err.message})`);
  }
  if (err instanceof BotApiError) return new EngineError("EXTERNAL_SERVICE_ERROR", err.message);
  throw err;
}
