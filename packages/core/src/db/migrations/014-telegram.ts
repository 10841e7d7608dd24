import type { Kysely } from "kysely";

/**
 * The chat-bot (docs/telegram.md): one bot row (its token, the webhook's secret and address, the
 * Bot API's base URL), one-time bind codes with their expiry, the bound chats, the log of received
 * `update_id`s (its primary key is what turns a redelivered update into a no-op, concurrent
 * deliveries included), and one row per album (`media_group_id`) naming the post its messages
 * join, with a short lease that serialises the album's writers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("telegram_bot")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("bot_token", "text", (col) => col.notNull())
    .addColumn("bot_username", "text")
    .addColumn("webhook_secret", "text", (col) => col.notNull())
    .addColumn("webhook_url", "text", (col) => col.notNull())
    .addColumn("api_base_url", "text", (col) => col.notNull())
    .addColumn("connected_at", "bigint", (col) => col.notNull())
    .execute();
  await db.schema
    .createTable("telegram_bind_codes")
    .addColumn("code", "text", (col) => col.primaryKey())
    .addColumn("expires_at", "bigint", (col) => col.notNull())
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .execute();
  await db.schema
    .createTable("telegram_chats")
    .addColumn("chat_id", "text", (col) => col.primaryKey())
    .addColumn("chat_type", "text", (col) => col.notNull())
    .addColumn("title", "text")
    .addColumn("bound_at", "bigint", (col) => col.notNull())
    .execute();
  await db.schema
    .createTable("telegram_updates")
    .addColumn("update_id", "bigint", (col) => col.primaryKey())
    .addColumn("state", "text", (col) => col.notNull())
    .addColumn("chat_id", "text")
    .addColumn("post_id", "text")
    .addColumn("error", "text")
    .addColumn("claimed_at", "bigint", (col) => col.notNull())
    .addColumn("finished_at", "bigint")
    .execute();
  await db.schema
    .createTable("telegram_albums")
    .addColumn("album_key", "text", (col) => col.primaryKey())
    .addColumn("post_id", "text")
    .addColumn("busy_until", "bigint")
    .addColumn("created_at", "bigint", (col) => col.notNull())
    .execute();
}
