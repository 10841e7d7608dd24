import * as z from "zod";
import { syncThreadMemberships } from "../collections/memberships.js";
import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import { languageTag } from "./post-language.js";
import { setLanguageOutput } from "./post-output.js";
import { findPost } from "./post-query.js";
import { lockThreadOf } from "./thread-lock.js";
import { applyThreadLanguage } from "./translation-group.js";

/** Input of `posts.setLanguage`. */
export const setLanguageInput = z.object({ id: typeId("pst"), language: languageTag });

/**
 * Sets the language of a whole Thread, named by any of its posts: the root and every reply.
 * CONFLICT when another post of the Thread's translation group holds that language.
 * @see spec § Language and translations, § Translation group
 */
export const setPostLanguage = defineOperation({
  id: "posts.setLanguage",
  access: "owner",
  description:
    "Sets the language of a post's whole Thread (root and replies); any post of the Thread is accepted.",
  hints: { idempotent: true },
  input: setLanguageInput,
  output: setLanguageOutput,
  run: async (ctx, input) =>
    ctx.db.transaction().execute(async (trx) => {
      const tctx = { ...ctx, db: trx };
      const threadId = await lockThreadOf(tctx, input.id);
      const root = threadId === undefined ? undefined : await findPost(trx, threadId);
      if (!root) throw notFound("post", input.id);
      await applyThreadLanguage(tctx, root, input.language);
      await syncThreadMemberships(tctx, root.id);
      return { success: true as const, language: input.language };
    }),
});
