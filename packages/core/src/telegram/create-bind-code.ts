import { conflict } from "../errors.js";
import { defineOperation } from "../operation.js";
import { readBot } from "./bot-config.js";
import { type BindCode, bindCodeOutput, noInput } from "./telegram-schemas.js";

/** How long a bind code stays usable, in seconds. */
export const bindCodeLifetimeSeconds = 15 * 60;

/** Letters and digits that cannot be mistaken for one another (no 0/O, 1/I/L). */
const alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/**
 * A one-time code that binds the chat it is sent from (`/start <code>`), valid for 15 minutes.
 * 10 characters from a 31-letter alphabet (about 50 bits), from the engine's secret generator.
 * 409 when no bot is connected.
 */
export const createBindCode = defineOperation({
  id: "telegram.createBindCode",
  access: "owner",
  description:
    "Creates a one-time code that binds a Telegram chat to the site when sent to the bot as /start <code>.",
  hints: {},
  input: noInput,
  output: bindCodeOutput,
  run: async (ctx): Promise<BindCode> => {
    const bot = await readBot(ctx.db);
    if (!bot) throw conflict("Connect a Telegram bot first (PUT /api/telegram/connection)");
    const now = ctx.clock.now();
    const code = codeFrom(ctx.ids.secret());
    const expiresAt = now + bindCodeLifetimeSeconds;
    // Expired codes go with each new one: the table holds only live codes and a few dead ones.
    await ctx.db.deleteFrom("telegram_bind_codes").where("expires_at", "<=", now).execute();
    await ctx.db
      .insertInto("telegram_bind_codes")
      .values({ code, expires_at: expiresAt, created_at: now })
      .execute();
    return {
      code,
      command: `/start ${code}`,
      link: bot.bot_username ? `https://t.me/${bot.bot_username}?start=${code}` : null,
      expiresAt,
    };
  },
});

const base64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Ten letters of the alphabet from a random base64url secret: each character's 6-bit value below
 * 62 picks `value % 31` (62 = 2 × 31, so every letter is equally likely); others are skipped.
 */
function codeFrom(secret: string): string {
  let code = "";
  for (const char of secret) {
    const value = base64url.indexOf(char);
    if (value < 0 || value >= 62) continue;
    code += alphabet[value % alphabet.length];
    if (code.length === 10) return code;
  }
  throw new Error("The secret generator gave too short a secret for a bind code");
}
