import { type Kysely, sql } from "kysely";
import type { Caller } from "../caller.js";
import type { Database } from "../db/schema.js";
import { filterConditions, type ThreadFilter } from "../threads/thread-filter.js";

/** How many Threads a filter matches and the newest activity among them (null when none). */
export interface MatchFigures {
  count: number;
  recentActivityAt: number | null;
}

/**
 * The figures of many filters in ONE scan of the published roots: per filter, a count and a max
 * over a `CASE` of its conditions (the Thread list's own conditions, so matching is defined once).
 * The scan is bounded by what every filter shares (published roots, the caller's visibility, the
 * language), and its cost does not grow with a query per filter. Also answers the baseline: how
 * many Threads that shared scope holds.
 * @see docs/smart-collections.md § Counting
 */
export async function matchFigures(
  db: Kysely<Database>,
  filters: readonly ThreadFilter[],
  scope: { caller: Caller; language?: string | undefined },
): Promise<{ figures: MatchFigures[]; baseline: number }> {
  let query = db
    .selectFrom("posts as r")
    .where("r.reply_to_id", "is", null)
    .where("r.status", "=", "published")
    .select((eb) => eb.fn.countAll().as("baseline"));
  if (scope.caller.role === "public") query = query.where("r.visibility", "<>", "private");
  if (scope.language !== undefined) query = query.where("r.language", "=", scope.language);
  const row = (await query
    .select((eb) =>
      filters.flatMap((filter, index) => {
        const matches = eb.and(filterConditions(eb, filter));
        return [
          eb.fn.count(eb.case().when(matches).then(sql.lit(1)).end()).as(`c${index}`),
          eb.fn.max(eb.case().when(matches).then(eb.ref("r.last_activity_at")).end()).as(`a${index}`),
        ];
      }),
    )
    .executeTakeFirstOrThrow()) as Record<string, unknown>;
  const figures = filters.map((_, index) => {
    const recent = row[`a${index}`];
    return {
      count: Number(row[`c${index}`] ?? 0),
      recentActivityAt: recent === null || recent === undefined ? null : Number(recent),
    };
  });
  return { figures, baseline: Number(row.baseline ?? 0) };
}
