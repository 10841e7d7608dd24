import { defineOperation } from "../operation.js";
import { activeGroupOf } from "../posts/translation-group.js";
import { translationsListOutput } from "./translation-output.js";
import { rootOf } from "./translation-root.js";
import { translationPostInput } from "./translation-schemas.js";
import { entryColumns, toVersionEntry, type VersionEntry } from "./translation-view.js";

/**
 * The other versions of a post's Thread: the roots of its translation group, the Thread's own left
 * out, by language. Empty without a group. @see spec § Language and translations
 */
export const listTranslations = defineOperation({
  id: "translations.list",
  access: "owner",
  description:
    "Lists the other language versions of a post's Thread (its translation group, itself excluded).",
  hints: { readOnly: true },
  input: translationPostInput,
  output: translationsListOutput,
  run: async (ctx, input): Promise<{ translations: VersionEntry[] }> => {
    const root = await rootOf(ctx.db, input.id);
    const group = await activeGroupOf(ctx.db, root);
    if (!group) return { translations: [] };
    const rows = await ctx.db
      .selectFrom("posts")
      .select(entryColumns)
      .where("translation_group_id", "=", group.id)
      .where("id", "<>", root.id)
      .orderBy("language")
      .orderBy("id")
      .execute();
    return { translations: rows.map(toVersionEntry) };
  },
});
