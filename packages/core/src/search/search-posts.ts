import { defineOperation } from "../operation.js";
import { rankCandidates } from "./rank.js";
import { searchOutput } from "./search-output.js";
import { findCandidates } from "./search-query.js";
import { type SearchPostsInput, searchPostsInput } from "./search-schemas.js";
import { queryTerms } from "./search-text.js";
import { type SearchAnswer, type SearchResultView, toSearchResult } from "./search-view.js";

/** The post columns a result and its snippet read (not the stored bodies). */
const resultColumns = [
  "p.id",
  "p.format",
  "p.status",
  "p.slug",
  "p.title",
  "p.url",
  "p.source_name",
  "p.source_url",
  "p.quote_text",
  "p.summary",
  "p.body_text",
  "p.display_title",
  "p.published_at",
  "p.permalink_path",
  "p.thread_id",
  "p.reply_to_id",
] as const;

/**
 * Searches the author's published posts (every visibility, roots and replies; never drafts): every
 * term of `q` must occur in a post, results best first. Operator characters are plain text.
 * @see docs/search.md, spec § Search
 */
export const searchPosts = defineOperation({
  id: "posts.search",
  access: "owner",
  description:
    "Searches published posts of any visibility, never drafts: every word of q must occur; best first.",
  hints: { readOnly: true, idempotent: true },
  input: searchPostsInput,
  output: searchOutput,
  run: async (ctx, input: SearchPostsInput): Promise<SearchAnswer> => {
    const terms = queryTerms(input.q);
    const candidates = terms.length === 0 ? [] : await findCandidates[ctx.dialect.name](ctx.db, terms);
    const ids = rankCandidates(candidates, terms)
      .slice(0, input.limit)
      .map((candidate) => candidate.post_id);
    if (ids.length === 0) return { query: input.q, results: [], count: 0 };
    // By primary key only: a filter on status here would let the planner pick a status index
    // and walk every published post. The index holds published posts only; the check below
    // covers a post unpublished since the candidates were read.
    const rows = await ctx.db
      .selectFrom("posts as p")
      .innerJoin("posts as r", "r.id", "p.thread_id")
      .select(resultColumns)
      .select("r.visibility as root_visibility")
      .where("p.id", "in", ids)
      .execute();
    const byId = new Map(rows.filter((row) => row.status === "published").map((row) => [row.id, row]));
    const results: SearchResultView[] = [];
    for (const id of ids) {
      const row = byId.get(id);
      if (row) results.push(toSearchResult(ctx, row, terms));
    }
    return { query: input.q, results, count: results.length };
  },
});
