import { defineOperation } from "../operation.js";
import { ownerCredentialId } from "./owner-credential.js";
import { hashPassword } from "./password-hash.js";
import { setPasswordInput, setPasswordOutput } from "./session-schemas.js";

/**
 * Sets (or replaces) the site owner's sign-in password, stored as a scrypt hash, and signs out
 * every open session: after a change only the new password opens one.
 */
export const setOwnerPassword = defineOperation({
  id: "owner.setPassword",
  access: "internal",
  description: "Sets the site owner's sign-in password (scrypt hash) and signs out every open session.",
  hints: { destructive: true, idempotent: false },
  input: setPasswordInput,
  output: setPasswordOutput,
  run: async (ctx, input) => {
    const passwordHash = await hashPassword(input.password);
    const now = ctx.clock.now();
    return ctx.db.transaction().execute(async (trx) => {
      // The upsert takes the row's lock, so a sign-in checking the old hash waits for this commit.
      await trx
        .insertInto("owner_credentials")
        .values({ id: ownerCredentialId, password_hash: passwordHash, updated_at: now })
        .onConflict((oc) => oc.column("id").doUpdateSet({ password_hash: passwordHash, updated_at: now }))
        .execute();
      const deleted = await trx.deleteFrom("sessions").executeTakeFirst();
      return { success: true as const, revokedSessions: Number(deleted.numDeletedRows) };
    });
  },
});
