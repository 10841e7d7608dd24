import { sql } from "kysely";
import { defineOperation } from "../operation.js";
import { activeGroupOf } from "../posts/translation-group.js";
import { escapeLike } from "../search/search-query.js";
import { foldText } from "../search/search-text.js";
import { candidatesOutput } from "./translation-output.js";
import { rootOf } from "./translation-root.js";
import { translationCandidatesInput } from "./translation-schemas.js";
import { type CandidateEntry, type EntryRow, entryColumns, toCandidateEntry } from "./translation-view.js";

/**
 * Thread roots that could be linked as a translation of a post's Thread, newest published first:
 * published roots whose title or body text contains `q` (folded as search folds it: case, accents
 * and compatibility forms set aside), in a language the group lacks (the post's own, when it has
 * no group), and — when the post is in a group — not in a group of their own. Read a page at a time
 * until `limit` are found, since the search row also holds fields that do not count.
 * @see spec § Language and translations
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
    // Matched on the folded text search keeps (search/search-text.ts: case, accents and
    // compatibility forms folded in JS, alike on both databases): `lower()` folds ASCII only on
    // SQLite, and on PostgreSQL follows the database's locale (none at all under `C`), so "über"
    // missed "Über". The search row holds every searched field; a hit in one other than the
    // title or body (a summary, a URL) is dropped below.
    const folded = foldText(input.q);
    // Only marks (a lone accent) fold to nothing, which every text would contain.
    if (folded.trim() === "") return { candidates: [] };
    let query = ctx.db
      .selectFrom("posts as p")
      .innerJoin("post_search as s", "s.post_id", "p.id")
      .select([...entryColumns.map((c) => `p.${c}` as const), "p.body_text", "p.published_at"])
      .where("p.reply_to_id", "is", null)
      .where("p.status", "=", "published")
      .where("p.id", "<>", root.id)
      .where("p.language", "is not", null)
      .where(sql<boolean>`s.search_text like ${`%${escapeLike(folded)}%`} escape '\\'`);
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
    const ordered = query.orderBy("p.published_at", "desc").orderBy("p.id", "desc");
    const rows: EntryRow[] = [];
    const chunk = Math.max(2 * input.limit, 20);
    let after: { published_at: number; id: string } | undefined;
    for (;;) {
      const from = after;
      const page = await (from
        ? ordered.where((eb) =>
            eb(eb.refTuple("p.published_at", "p.id"), "<", eb.tuple(from.published_at, from.id)),
          )
        : ordered
      )
        .limit(chunk)
        .execute();
      for (const row of page) {
        if (foldText(row.title ?? "").includes(folded) || foldText(row.body_text ?? "").includes(folded))
          rows.push(row);
      }
      const last = page.at(-1);
      if (rows.length >= input.limit || page.length < chunk || !last) break;
      after = { published_at: Number(last.published_at), id: last.id };
    }
    return { candidates: rows.slice(0, input.limit).map(toCandidateEntry) };
  },
});
