import { hashToken } from "../auth/token-hash.js";
import type { Caller } from "../caller.js";
import type { EngineContext } from "../deps.js";

/** A session secret: `qs_` and 32 random bytes in base64url (or a test engine's counter). */
export const sessionTokenPattern = /^qs_[A-Za-z0-9_-]{16,128}$/;

/** The key a session's row is stored under: the SHA-256 of its secret, never the secret itself. */
export function sessionKey(token: string): Promise<string> {
  return hashToken(token);
}

/**
 * The caller a session secret stands for, or null when it is malformed, unknown, signed out or
 * expired: one read by primary key.
 */
export async function verifySession(ctx: EngineContext, token: string): Promise<Caller | null> {
  if (!sessionTokenPattern.test(token)) return null;
  const row = await ctx.db
    .selectFrom("sessions")
    .select("expires_at")
    .where("token_hash", "=", await sessionKey(token))
    .where("expires_at", ">", ctx.clock.now())
    .executeTakeFirst();
  return row ? { role: "owner" } : null;
}
