import { defineOperation } from "../operation.js";
import { unlinkTranslation as leaveGroup } from "../posts/translation-group.js";
import { successOutput } from "../shared/outputs.js";
import { translationPostInput } from "./translation-schemas.js";

/**
 * Takes a Thread root out of its translation group; the others stay linked, and a group left with
 * one post is dissolved. A post in no group answers ok-body too. 400 for a reply.
 */
export const unlinkTranslation = defineOperation({
  id: "translations.unlink",
  access: "owner",
  description: "Takes this Thread root out of its translation group; the other versions stay linked.",
  hints: { destructive: true, idempotent: true },
  input: translationPostInput,
  output: successOutput,
  run: async (ctx, input) => {
    await ctx.db
      .transaction()
      .execute((trx) => leaveGroup({ ...ctx, db: trx }, { id: input.id, field: "id" }));
    return { success: true as const };
  },
});
