import { unauthorized } from "../errors.js";
import { defineOperation } from "../operation.js";
import { ownerCredentialId } from "./owner-credential.js";
import { decoyHash, verifyPassword } from "./password-hash.js";
import { signInInput, signInOutput } from "./session-schemas.js";
import { sessionKey } from "./session-token.js";

/**
 * Checks the owner's password and opens a session: returns its secret once (only its SHA-256 is
 * stored) and when it expires. A wrong password, or none set yet, is 401 UNAUTHORIZED and writes
 * nothing. Expired sessions are deleted on the way.
 */
export const signIn = defineOperation({
  id: "sessions.signIn",
  access: "internal",
  description: "Checks the site owner's password and opens a browser session; returns its secret once.",
  input: signInInput,
  output: signInOutput,
  run: async (ctx, input) => {
    const credential = await ctx.db
      .selectFrom("owner_credentials")
      .select("password_hash")
      .where("id", "=", ownerCredentialId)
      .executeTakeFirst();
    // Without a password set, a decoy is checked so the answer takes as long as a wrong password.
    const matches = await verifyPassword(input.password, credential?.password_hash ?? (await decoyHash()));
    if (!credential || !matches) throw unauthorized("Wrong password");
    const token = `qs_${ctx.ids.secret()}`;
    const now = ctx.clock.now();
    const expiresAt = now + input.maxAgeSeconds;
    const tokenHash = await sessionKey(token);
    await ctx.db.transaction().execute(async (trx) => {
      // The password may have changed while it was being checked (a change signs everyone out):
      // with the owner's row locked, the session opens only if the checked hash is still current.
      await ctx.dialect.lockRow(trx, { table: "owner_credentials", id: ownerCredentialId });
      const current = await trx
        .selectFrom("owner_credentials")
        .select("password_hash")
        .where("id", "=", ownerCredentialId)
        .executeTakeFirst();
      if (current?.password_hash !== credential.password_hash) {
        throw unauthorized("The password changed while signing in; sign in with the new one");
      }
      await trx.deleteFrom("sessions").where("expires_at", "<=", now).execute();
      await trx
        .insertInto("sessions")
        .values({ token_hash: tokenHash, created_at: now, expires_at: expiresAt })
        .execute();
    });
    return { token, expiresAt };
  },
});
