import { defineOperation } from "../operation.js";
import { linkTranslations } from "../posts/translation-group.js";
import { successOutput } from "../shared/outputs.js";
import { linkTranslationInput } from "./translation-schemas.js";

/**
 * Links two Thread roots as translations of each other (spec § Translation group): one without a
 * group joins the other's, two without one form a new group. 409 when both are already in groups,
 * when they share a language, or when the group already holds the newcomer's language; 400 for a
 * post linked to itself or to a reply. @see docs/languages.md § Translation groups
 */
export const linkTranslation = defineOperation({
  id: "translations.link",
  access: "owner",
  description: "Links another Thread root (postId) as a translation of this post.",
  hints: { idempotent: true },
  input: linkTranslationInput,
  output: successOutput,
  run: async (ctx, input) => {
    await ctx.db
      .transaction()
      .execute((trx) =>
        linkTranslations(
          { ...ctx, db: trx },
          { id: input.id, postId: input.postId, fields: { id: "id", postId: "postId" } },
        ),
      );
    return { success: true as const };
  },
});
