import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import { defineOperation } from "../operation.js";
import { readBot } from "./bot-config.js";
import { noInput, statusOutput, type TelegramStatus } from "./telegram-schemas.js";

/** The bot's status as the owner sees it: never the token or the webhook secret. */
export async function statusOf(db: Kysely<Database>, now: number): Promise<TelegramStatus> {
  const row = await readBot(db);
  const chats = await db
    .selectFrom("telegram_chats")
    .selectAll()
    .orderBy("bound_at")
    .orderBy("chat_id")
    .execute();
  const pending = await db
    .selectFrom("telegram_bind_codes")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("expires_at", ">", now)
    .executeTakeFirstOrThrow();
  return {
    connected: row !== undefined,
    ...(row
      ? {
          botUsername: row.bot_username,
          webhookUrl: row.webhook_url,
          apiBaseUrl: row.api_base_url,
          connectedAt: row.connected_at,
        }
      : {}),
    chats: chats.map((chat) => ({
      chatId: chat.chat_id,
      type: chat.chat_type,
      title: chat.title,
      boundAt: chat.bound_at,
    })),
    pendingBindCodes: Number(pending.n),
  };
}

/** Whether a bot is connected, its webhook address, the bound chats. */
export const telegramStatus = defineOperation({
  id: "telegram.status",
  access: "owner",
  description: "Shows whether a Telegram bot is connected, its webhook address and the chats bound to it.",
  hints: { readOnly: true, idempotent: true },
  input: noInput,
  output: statusOutput,
  run: (ctx) => statusOf(ctx.db, ctx.clock.now()),
});
