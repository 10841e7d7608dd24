import { defineOperation } from "../operation.js";
import { revokeAllInput, revokeAllOutput, signOutInput, signOutOutput } from "./session-schemas.js";
import { sessionKey, sessionTokenPattern } from "./session-token.js";

/**
 * Ends a session on the server: its row is deleted, so its cookie stops working at once, wherever
 * a copy of it is. Signing out an unknown or already ended session succeeds too.
 */
export const signOut = defineOperation({
  id: "sessions.signOut",
  access: "internal",
  description: "Ends a browser session server-side; its cookie stops working at once.",
  hints: { destructive: true, idempotent: true },
  input: signOutInput,
  output: signOutOutput,
  run: async (ctx, input) => {
    if (sessionTokenPattern.test(input.token)) {
      await ctx.db
        .deleteFrom("sessions")
        .where("token_hash", "=", await sessionKey(input.token))
        .execute();
    }
    return { success: true as const };
  },
});

/** Ends every browser session (API tokens are untouched). */
export const revokeAllSessions = defineOperation({
  id: "sessions.revokeAll",
  access: "internal",
  description: "Ends every browser session of the site owner; API tokens keep working.",
  hints: { destructive: true, idempotent: true },
  input: revokeAllInput,
  output: revokeAllOutput,
  run: async (ctx) => {
    const deleted = await ctx.db.deleteFrom("sessions").executeTakeFirst();
    return { success: true as const, revokedSessions: Number(deleted.numDeletedRows) };
  },
});
