import { sql } from "kysely";
import { defineOperation } from "../operation.js";
import { activeGroupOf } from "../posts/translation-group.js";
import { candidatesOutput } from "./translation-output.js";
import { rootOf } from "./translation-root.js";
import { translationCandidatesInput } from "./translation-schemas.js";
import { type CandidateEntry, entryColumns, toCandidateEntry } from "./translation-view.js";

/**
 * Thread roots that could be linked as a translation of a post's Thread, newest published first:
 * published roots whose title or body text contains `q` (case-insensitive), in a language the
 * group lacks (the post's own, when it has no group), and — when the post is in a group — not in a
 * group of their own. @see spec § Language and translations
 */
export const listTranslationCandidates = defineOperation({
  id: "translations.candidates",
  access: "owner",
  description:
    "Finds published Thread roots, matched on title or body, that could be linked as translations of this post.",
  hints: { readOnly: true },
  input: translationCandidatesInput,
  output: candidatesOutput,
  run: async (ctx, input): Promise<{ candidates: CandidateEntry[] }> => {
    const root = await rootOf(ctx.db, input.id);
    const group = await activeGroupOf(ctx.db, root);
    const taken = group
      ? group.members.flatMap((m) => (m.language === null ? [] : [m.language]))
      : root.language === null
        ? []
        : [root.language];
    const pattern = `%${input.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    let query = ctx.db
      .selectFrom("posts as p")
      .select(entryColumns.map((c) => `p.${c}` as const))
      .where("p.reply_to_id", "is", null)
      .where("p.status", "=", "published")
      .where("p.id", "<>", root.id)
      .where("p.language", "is not", null)
      .where((eb) =>
        eb.or([
          sql<boolean>`lower(${eb.ref("p.title")}) like ${pattern} escape '\\'`,
          sql<boolean>`lower(${eb.ref("p.body_text")}) like ${pattern} escape '\\'`,
        ]),
      );
    if (taken.length > 0) query = query.where("p.language", "not in", taken);
    if (group) {
      // Not in a group that counts (a group of one is dissolved).
      query = query.where((eb) =>
        eb.or([
          eb("p.translation_group_id", "is", null),
          eb(
            eb
              .selectFrom("posts as g")
              .select((g) => g.fn.countAll().as("n"))
              .whereRef("g.translation_group_id", "=", "p.translation_group_id"),
            "<",
            2,
          ),
        ]),
      );
    }
    const rows = await query
      .orderBy("p.published_at", "desc")
      .orderBy("p.id", "desc")
      .limit(input.limit)
      .execute();
    return { candidates: rows.map(toCandidateEntry) };
  },
});
