import * as z from "zod";
import { limitParam } from "../shared/list-params.js";

/** The longest query text, in characters. */
export const maxQueryLength = 200;

/**
 * A query text: at most 200 characters as sent, not blank; trimmed. Search and translation
 * candidates take it.
 */
export const queryText = z
  .string()
  .max(maxQueryLength, `Expected at most ${maxQueryLength} characters`)
  .trim()
  .min(1, "Expected a non-blank query");

/**
 * `GET /api/search` and `site_posts_search`: `q` (required, not blank, at most 200 characters) and
 * `limit` (1 to 50, default 20; out of range is clamped). @see docs/search.md
 */
export const searchPostsInput = z.object({
  q: queryText,
  limit: limitParam({ min: 1, max: 50, default: 20 }),
});

export type SearchPostsInput = z.output<typeof searchPostsInput>;
