import { connectBot } from "./connect-bot.js";
import { createBindCode } from "./create-bind-code.js";
import { disconnectBot } from "./disconnect-bot.js";
import { receiveUpdate } from "./receive-update.js";
import { telegramStatus } from "./telegram-status.js";

export { entitiesToMarkdown, type MessageEntity } from "./entities.js";

/** The chat-bot: its owner's setup and Telegram's webhook (docs/telegram.md). */
export const telegramOperations = [
  telegramStatus,
  connectBot,
  createBindCode,
  disconnectBot,
  receiveUpdate,
] as const;
