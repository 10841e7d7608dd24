import * as z from "zod";
import { bytesParam } from "../shared/bytes.js";

/** The Bot API's public address; a stand-in (tests, a local Bot API server) may replace it. */
export const defaultApiBaseUrl = "https://api.telegram.org";

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .transform((value) => value.replace(/\/+$/, ""));

/** Input of `telegram.connect`. */
export const connectInput = z.object({
  botToken: z
    .string()
    .trim()
    .regex(
      /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/,
      "Expected a bot token as @BotFather gives it, like 123456:ABC-DEF…",
    )
    .describe("The bot's token from @BotFather; stored, never shown again"),
  webhookUrl: httpUrl.describe(
    "The public address Telegram delivers updates to: this site's /api/telegram (HTTPS for Telegram)",
  ),
  apiBaseUrl: httpUrl
    .default(defaultApiBaseUrl)
    .describe("The Bot API server (default https://api.telegram.org)"),
});

/** Input of operations that take nothing. */
export const noInput = z.object({});

/** Input of `telegram.webhook`: the delivery's raw bytes and its headers (names in lower case). */
export const webhookInput = z.object({
  body: bytesParam.optional().describe("The update's raw JSON body (base64 in JSON)"),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .describe("The delivery's headers, lower-case names: x-chat-bot-api-secret-token"),
});

const chatOutput = z.object({
  chatId: z.string().describe("The chat's Telegram ID"),
  type: z.string().describe("private, group, supergroup or channel"),
  title: z.string().nullable().describe("The chat's title or the user's name"),
  boundAt: z.number().int().describe("Unix seconds"),
});

/** What `telegram.status` (and connect, disconnect) answer: never the token or the secret. */
export const statusOutput = z.object({
  connected: z.boolean(),
  botUsername: z.string().nullable().optional(),
  webhookUrl: z.string().optional(),
  apiBaseUrl: z.string().optional(),
  connectedAt: z.number().int().optional().describe("Unix seconds"),
  chats: z.array(chatOutput),
  pendingBindCodes: z.number().int().describe("Bind codes not used yet and not expired"),
});
/** The bot's status. */
export type TelegramStatus = z.output<typeof statusOutput>;

/** What `telegram.createBindCode` answers. */
export const bindCodeOutput = z.object({
  code: z.string(),
  command: z.string().describe("What to send the bot from the chat: /start <code>"),
  link: z.string().nullable().describe("https://t.me/<bot>?start=<code>, when the bot's username is known"),
  expiresAt: z.number().int().describe("Unix seconds"),
});
/** A new bind code. */
export type BindCode = z.output<typeof bindCodeOutput>;

/** What the webhook answers to an accepted update. */
export const webhookOutput = z.object({
  ok: z.literal(true),
  status: z
    .enum(["published", "added", "bound", "replied", "duplicate", "ignored", "failed"])
    .describe("What became of the update (docs/telegram.md § Answers)"),
  updateId: z.number().int().optional(),
  postId: z.string().optional(),
  reason: z.string().optional(),
});
/** The webhook's answer. */
export type WebhookResult = z.output<typeof webhookOutput>;

const entity = z.object({
  type: z.string().max(64),
  offset: z.number().int().min(0),
  length: z.number().int().min(0),
  url: z.string().max(4096).optional(),
  language: z.string().max(100).optional(),
});

const file = { file_id: z.string().min(1).max(1000), file_unique_id: z.string().max(1000).optional() };

/**
 * The part of a Message the bot reads (https://core.telegram.org/bots/api#message); other fields
 * pass through unread.
 */
export const messagePayload = z.object({
  message_id: z.number().int(),
  date: z.number().int().optional(),
  chat: z.object({
    id: z.number().int(),
    // The webhooks guide's sample updates leave it out; the Bot API always sends it.
    type: z.string().max(32).default("private"),
    title: z.string().max(1000).optional(),
    username: z.string().max(100).optional(),
    first_name: z.string().max(1000).optional(),
    last_name: z.string().max(1000).optional(),
  }),
  media_group_id: z.string().max(200).optional(),
  text: z.string().max(10_000).optional(),
  entities: z.array(entity).max(1000).optional(),
  caption: z.string().max(10_000).optional(),
  caption_entities: z.array(entity).max(1000).optional(),
  photo: z
    .array(
      z.object({
        ...file,
        width: z.number().int().optional(),
        height: z.number().int().optional(),
        file_size: z.number().int().optional(),
      }),
    )
    .max(20)
    .optional(),
  video: z
    .object({
      ...file,
      file_name: z.string().max(1000).optional(),
      mime_type: z.string().max(255).optional(),
      file_size: z.number().int().optional(),
      width: z.number().int().optional(),
      height: z.number().int().optional(),
    })
    .optional(),
  document: z
    .object({
      ...file,
      file_name: z.string().max(1000).optional(),
      mime_type: z.string().max(255).optional(),
      file_size: z.number().int().optional(),
    })
    .optional(),
});
/** A message the bot reads. */
export type MessagePayload = z.output<typeof messagePayload>;

/** An Update (https://core.telegram.org/bots/api#update): its ID and the kinds the bot reads. */
export const updatePayload = z.object({
  update_id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  message: z.unknown().optional(),
  channel_post: z.unknown().optional(),
});
