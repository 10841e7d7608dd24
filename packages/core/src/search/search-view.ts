import type { EngineContext } from "../deps.js";
import { permalinkOf } from "../posts/post-view.js";
import type { SearchableFields } from "./search-text.js";
import { buildSnippet } from "./snippet.js";

/** One search result. Quote posts carry `sourceName`/`sourceUrl` in place of `title`/`url`. */
export type SearchResultView = Record<string, unknown> & {
  id: string;
  format: string;
  slug: string;
  publishedAt: number | null;
  permalink: string;
  visibility: string;
  snippet: string;
};

/** The answer of a search: the query as read (trimmed), the results best first, their number. */
export interface SearchAnswer {
  query: string;
  results: SearchResultView[];
  count: number;
}

/** The post columns a search result is made of. */
export interface SearchRow extends SearchableFields {
  id: string;
  format: string;
  slug: string;
  display_title: string;
  published_at: number | null;
  permalink_path: string | null;
  thread_id: string;
  reply_to_id: string | null;
  root_visibility: string;
}

/** A post row as a search result, with its snippet around the query's terms. */
export function toSearchResult(
  ctx: EngineContext,
  row: SearchRow,
  terms: readonly string[],
): SearchResultView {
  return {
    id: row.id,
    format: row.format,
    slug: row.slug,
    ...(row.format === "quote"
      ? { sourceName: row.source_name, sourceUrl: row.source_url }
      : { title: row.title, url: row.url }),
    displayTitle: row.display_title,
    publishedAt: row.published_at,
    permalink: permalinkOf(ctx, row),
    visibility: row.root_visibility,
    threadId: row.thread_id,
    replyToId: row.reply_to_id,
    snippet: buildSnippet(row, terms),
  };
}
