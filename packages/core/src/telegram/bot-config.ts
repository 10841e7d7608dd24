import type { Kysely, Selectable } from "kysely";
import { constantTimeEqual, hashToken } from "../auth/token-hash.js";
import type { Database, TelegramBotTable } from "../db/schema.js";
import { type BotApi, botApi } from "./bot-api.js";

/** The bot's one row. */
export type BotRow = Selectable<TelegramBotTable>;

/** The ID of the bot's one row. */
export const botRowId = "bot";

/** The bot's configuration, or undefined when none is connected. */
export async function readBot(db: Kysely<Database>): Promise<BotRow | undefined> {
  return db.selectFrom("telegram_bot").selectAll().where("id", "=", botRowId).executeTakeFirst();
}

/** A Bot API client for the connected bot, at the row's `api_base_url`. */
export function apiFor(row: Pick<BotRow, "api_base_url" | "bot_token">): BotApi {
  return botApi(row.api_base_url, row.bot_token);
}

/**
 * True when `sent` is the secret, compared in constant time: both are hashed (SHA-256) and the
 * digests compared without an early exit, so neither the time taken nor the lengths tell anything
 * about the secret. The API tokens' hash and comparison (auth/token-hash.ts).
 */
export async function secretMatches(secret: string, sent: string | undefined): Promise<boolean> {
  if (sent === undefined) return false;
  const [expected, received] = await Promise.all([hashToken(secret), hashToken(sent)]);
  return constantTimeEqual(expected, received);
}
