import type { EngineContext } from "../deps.js";
import { EngineError, invalidField, isEngineError } from "../errors.js";
import { defineOperation, parseInput } from "../operation.js";
import { type ByteSource, chunksOf } from "../storage.js";
import type { BotApi } from "./bot-api.js";
import { apiFor, type BotRow, readBot, secretMatches } from "./bot-config.js";
import { fileOf, publishMessage } from "./publish-message.js";
import {
  type MessagePayload,
  messagePayload,
  updatePayload,
  type WebhookResult,
  webhookInput,
  webhookOutput,
} from "./telegram-schemas.js";

/** The header Telegram sends the webhook's secret in (spec § Authentication: Secret header). */
export const secretHeader = "x-chat-bot-api-secret-token";
/** Largest update read, in bytes (an update is a few kilobytes: a message's text is at most 4096 characters). */
export const maxUpdateBytes = 1024 * 1024;
/** How long an update stays claimed by a delivery that has not finished, in seconds. */
const claimLeaseSeconds = 300;

/**
 * Telegram's webhook (docs/telegram.md § Webhook). In order: no bot connected → 404; a missing or
 * wrong `X-Chat-Bot-Api-Secret-Token` → 401 (compared in constant time, before the body is read);
 * a body over 1 MiB → 400; a body that is not an Update's JSON → 400. Then every accepted update
 * answers 200: an update kind other than `message`/`channel_post`, a chat that is not bound, or a
 * message kind that is not published → `ignored` or `replied` (nothing written); `/start <code>`
 * binds the chat; a bound chat's text, photo, video or document is published (`published`, or
 * `added` to its album's post); an update ID already handled → `duplicate`; a failure to publish
 * → `failed`, with a reply in the chat and a log line.
 */
export const receiveUpdate = defineOperation({
  id: "telegram.webhook",
  access: "public",
  description:
    "Receives a Telegram update: binds a chat by its code, or publishes a bound chat's message as a note.",
  hints: {},
  input: webhookInput,
  output: webhookOutput,
  run: async (ctx, input): Promise<WebhookResult> => {
    const bot = await readBot(ctx.db);
    if (!bot) throw new EngineError("NOT_FOUND", "No Telegram bot is connected to this site");
    const headers = Object.fromEntries(
      Object.entries(input.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    if (!(await secretMatches(bot.webhook_secret, headers[secretHeader]))) {
      throw new EngineError("UNAUTHORIZED", "X-Chat-Bot-Api-Secret-Token is missing or wrong");
    }
    const update = parseInput(updatePayload, parseJson(await readLimited(input.body)));
    const updateId = update.update_id;
    const raw = update.message ?? update.channel_post;
    if (raw === undefined) {
      return {
        ok: true,
        status: "ignored",
        updateId,
        reason: "Only message and channel_post updates are read",
      };
    }
    const message = parseInput(messagePayload, raw);
    const api = apiFor(bot);
    const command = commandOf(message, bot);
    if (command?.name === "start") return bindChat(ctx, api, updateId, message, command.argument);
    const chatId = String(message.chat.id);
    const bound = await ctx.db
      .selectFrom("telegram_chats")
      .select("chat_id")
      .where("chat_id", "=", chatId)
      .executeTakeFirst();
    if (!bound)
      return { ok: true, status: "ignored", updateId, reason: "This chat is not bound to the site" };
    if (command) {
      await reply(ctx, api, message, "Send text, a photo, a video or a document to publish it as a note.");
      return { ok: true, status: "replied", updateId, reason: `Unknown command /${command.name}` };
    }
    if (message.text === undefined && fileOf(message) === null) {
      await reply(
        ctx,
        api,
        message,
        "Only text, photos, videos and documents are published; this message was not.",
      );
      return { ok: true, status: "replied", updateId, reason: "This kind of message is not published" };
    }
    const claim = await claimUpdate(ctx, updateId, chatId);
    if (claim === "duplicate") return { ok: true, status: "duplicate", updateId };
    try {
      const { postId, created } = await publishMessage(ctx, api, message);
      await finishUpdate(ctx, updateId, { state: "done", postId, error: null });
      return { ok: true, status: created ? "published" : "added", updateId, postId };
    } catch (err) {
      if (isEngineError(err) && err.code === "CONFLICT" && message.media_group_id !== undefined) {
        // The album is held by another delivery: let go of the update so that Telegram's next
        // delivery of it is handled.
        await ctx.db.deleteFrom("telegram_updates").where("update_id", "=", updateId).execute();
        throw err;
      }
      const reason = err instanceof Error ? err.message : String(err);
      ctx.logger.warn("telegram: an update could not be published", { updateId, chatId, error: reason });
      await finishUpdate(ctx, updateId, { state: "failed", postId: null, error: reason.slice(0, 1000) });
      await reply(ctx, api, message, `This message was not published: ${reason}`);
      return { ok: true, status: "failed", updateId, reason };
    }
  },
});

/** A bot command at the start of a text (`/start CODE`, `/start@SiteBot CODE`) meant for this bot. */
function commandOf(message: MessagePayload, bot: BotRow): { name: string; argument: string } | null {
  const match = /^\/([A-Za-z0-9_]{1,64})(?:@([A-Za-z0-9_]{1,64}))?(?:\s+([\s\S]*))?$/.exec(
    message.text ?? "",
  );
  if (!match) return null;
  const [, name, addressee, argument] = match as unknown as [
    string,
    string,
    string | undefined,
    string | undefined,
  ];
  if (addressee && bot.bot_username && addressee.toLowerCase() !== bot.bot_username.toLowerCase())
    return null;
  return { name: name.toLowerCase(), argument: (argument ?? "").trim() };
}

/**
 * `/start <code>`: the code is used up and the chat bound in one transaction, with the update ID
 * claimed in it too; an unknown or expired code changes nothing and is answered in the chat.
 */
async function bindChat(
  ctx: EngineContext,
  api: BotApi,
  updateId: number,
  message: MessagePayload,
  argument: string,
): Promise<WebhookResult> {
  const chatId = String(message.chat.id);
  if (argument === "") {
    const bound = await ctx.db
      .selectFrom("telegram_chats")
      .select("chat_id")
      .where("chat_id", "=", chatId)
      .executeTakeFirst();
    await reply(
      ctx,
      api,
      message,
      bound
        ? "This chat is connected: what you send here is published."
        : "Send /start followed by the code from the site's Telegram settings to connect this chat.",
    );
    return { ok: true, status: "replied", updateId };
  }
  const code = argument.toUpperCase();
  const now = ctx.clock.now();
  const outcome = await ctx.db
    .transaction()
    .execute(async (trx) => {
      const claimed = await trx
        .insertInto("telegram_updates")
        .values({
          update_id: updateId,
          state: "done",
          chat_id: chatId,
          post_id: null,
          error: null,
          claimed_at: now,
          finished_at: now,
        })
        .onConflict((oc) => oc.column("update_id").doNothing())
        .executeTakeFirst();
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0) === 0) return "duplicate" as const;
      const used = await trx
        .deleteFrom("telegram_bind_codes")
        .where("code", "=", code)
        .where("expires_at", ">", now)
        .executeTakeFirst();
      if (Number(used.numDeletedRows) === 0) throw new InvalidCode();
      await trx
        .insertInto("telegram_chats")
        .values({ chat_id: chatId, chat_type: message.chat.type, title: chatTitle(message), bound_at: now })
        .onConflict((oc) => oc.column("chat_id").doNothing())
        .execute();
      return "bound" as const;
    })
    .catch((err) => {
      if (err instanceof InvalidCode) return "invalid" as const;
      throw err;
    });
  if (outcome === "duplicate") return { ok: true, status: "duplicate", updateId };
  if (outcome === "invalid") {
    await reply(
      ctx,
      api,
      message,
      "This code is unknown or has expired: create a new one in the site's Telegram settings.",
    );
    return { ok: true, status: "replied", updateId, reason: "Unknown or expired bind code" };
  }
  await reply(
    ctx,
    api,
    message,
    `Connected to ${ctx.settings.siteName}: what you send here is published as a note.`,
  );
  return { ok: true, status: "bound", updateId };
}

/** Thrown inside the bind transaction to undo it. */
class InvalidCode extends Error {}

function chatTitle(message: MessagePayload): string | null {
  const { chat } = message;
  const name = [chat.first_name, chat.last_name].filter(Boolean).join(" ");
  return chat.title ?? (name || (chat.username ? `@${chat.username}` : null));
}

/**
 * Claims an update by its ID (insert or ignore on the primary key). Already claimed: a finished
 * update is a duplicate; one another delivery is still working on answers 409 (Telegram delivers
 * it again later), unless that delivery's lease has run out, when this one takes it over.
 */
async function claimUpdate(
  ctx: EngineContext,
  updateId: number,
  chatId: string,
): Promise<"claimed" | "duplicate"> {
  const now = ctx.clock.now();
  const inserted = await ctx.db
    .insertInto("telegram_updates")
    .values({
      update_id: updateId,
      state: "processing",
      chat_id: chatId,
      post_id: null,
      error: null,
      claimed_at: now,
      finished_at: null,
    })
    .onConflict((oc) => oc.column("update_id").doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return "claimed";
  const taken = await ctx.db
    .updateTable("telegram_updates")
    .set({ claimed_at: now })
    .where("update_id", "=", updateId)
    .where("state", "=", "processing")
    .where("claimed_at", "<=", now - claimLeaseSeconds)
    .executeTakeFirst();
  if (Number(taken.numUpdatedRows) > 0) return "claimed";
  const row = await ctx.db
    .selectFrom("telegram_updates")
    .select("state")
    .where("update_id", "=", updateId)
    .executeTakeFirst();
  if (row?.state === "processing") {
    throw new EngineError(
      "CONFLICT",
      "This update is being handled by another delivery; deliver it again later",
    );
  }
  return "duplicate";
}

async function finishUpdate(
  ctx: EngineContext,
  updateId: number,
  result: { state: "done" | "failed"; postId: string | null; error: string | null },
): Promise<void> {
  await ctx.db
    .updateTable("telegram_updates")
    .set({ state: result.state, post_id: result.postId, error: result.error, finished_at: ctx.clock.now() })
    .where("update_id", "=", updateId)
    .execute();
}

/** Answers in the chat, replying to the message; a failure to send is logged, never thrown. */
async function reply(ctx: EngineContext, api: BotApi, message: MessagePayload, text: string): Promise<void> {
  try {
    await api.sendMessage({
      chat_id: message.chat.id,
      text,
      reply_parameters: { message_id: message.message_id, allow_sending_without_reply: true },
    });
  } catch (err) {
    ctx.logger.warn("telegram: sendMessage failed", {
      chatId: message.chat.id,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

async function readLimited(source: ByteSource | undefined): Promise<string> {
  if (source === undefined) return "";
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for await (const chunk of chunksOf(source)) {
    size += chunk.byteLength;
    if (size > maxUpdateBytes) throw invalidField("body", `An update may be at most ${maxUpdateBytes} bytes`);
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function parseJson(text: string): unknown {
  if (text.trim() === "") throw invalidField("body", "Expected an Update as JSON; the body is empty");
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw invalidField("body", "Expected an Update: a JSON object");
    }
    return value;
  } catch (err) {
    if (isEngineError(err)) throw err;
    throw invalidField("body", "The body is not valid JSON");
  }
}
