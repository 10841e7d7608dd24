import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import { collectionFilter, collectionIdFilter } from "../collections/memberships.js";
import type { Database, PostsTable } from "../db/schema.js";
import type { SiteSettings } from "../deps.js";
import { invalidField } from "../errors.js";
import type { PostFormat } from "../posts/post-schemas.js";
import type { ListPublicThreadsInput, ListThreadsInput, MediaFilter, ThreadSort } from "./thread-schemas.js";
import { zonedYearBounds } from "./zoned-year.js";

/** The roots a list may show, by stored visibility: one value, all but private, or all. */
export type VisibilityFilter = { kind: "one"; value: string } | { kind: "notPrivate" } | { kind: "all" };

/** Which roots a Thread list shows, resolved from its query. Every field is a condition on the root row. */
export interface ThreadFilter {
  status: "published" | "draft";
  visibility: VisibilityFilter;
  featured: boolean;
  format?: PostFormat | undefined;
  /** `[start, end)` Unix seconds of `published_at` (the `year` filter). */
  published?: { start: number; end: number } | undefined;
  title?: "any" | "none" | undefined;
  replies?: "any" | "none" | undefined;
  language?: string | undefined;
  media?: MediaFilter | undefined;
  /**
   * Collection slugs (the `collection` parameter); a Thread in any one matches, an unknown slug
   * matches nothing. They also bring the collections' pins and order (spec § Threads rule 4).
   */
  collections?: string[] | undefined;
  /** Collection IDs (`col_…`); a Thread in any one matches. A plain condition: no pins, no order. */
  collectionIds?: string[] | undefined;
}

/** A resolved list query: the filter and the order. */
export interface ThreadListQuery {
  filter: ThreadFilter;
  sort: ThreadSort;
  /**
   * True when the client sent no `sort`: one named collection then lists in its own `sortOrder`
   * (spec § Threads rule 4). Absent means the sort was chosen.
   */
  defaultSort?: boolean | undefined;
}

/**
 * Resolves a list query for one surface, applying spec § Threads rules 1–3: the unfiltered public
 * list is `public` only, the owner's is every visibility; `hidden` reads `latest_hidden`; `any`
 * adds latest-hidden on the public list; `featured` lists by publication and refuses another sort.
 */
export function resolveListQuery(
  input: ListThreadsInput | ListPublicThreadsInput,
  surface: "owner" | "public",
  settings: SiteSettings,
): ThreadListQuery {
  const featured = input.visibility === "featured";
  if (featured && input.sort !== undefined && input.sort !== "published") {
    throw invalidField(
      "sort",
      "visibility=featured lists by publication: use sort=published or leave sort out",
    );
  }
  return {
    sort: input.sort ?? (featured ? "published" : "activity"),
    defaultSort: input.sort === undefined && !featured,
    filter: {
      status: "status" in input ? input.status : "published",
      visibility: visibilityFilter(input.visibility, surface),
      featured,
      format: input.format,
      published: input.year === undefined ? undefined : zonedYearBounds(input.year, settings.timeZone),
      title: input.title,
      replies: input.replies,
      language: input.lang,
      media: input.media,
      collections: input.collection,
    },
  };
}

function visibilityFilter(
  visibility: ListThreadsInput["visibility"],
  surface: "owner" | "public",
): VisibilityFilter {
  switch (visibility) {
    case "public":
      return { kind: "one", value: "public" };
    case "hidden":
    case "latest_hidden":
      return { kind: "one", value: "latest_hidden" };
    case "private":
      return { kind: "one", value: "private" };
    case "any":
    case "featured":
      return surface === "public" ? { kind: "notPrivate" } : { kind: "all" };
    case undefined:
      return surface === "public" ? { kind: "one", value: "public" } : { kind: "all" };
  }
}

/** The query scope of root rows, aliased `r`. */
export type RootScope = ExpressionBuilder<Database & { r: PostsTable }, "r">;

/**
 * The filter as conditions on root rows. Each is a plain comparison on a root column, so the list
 * walks its order's index and checks these on the way. A new filter is one more entry here.
 */
export function filterConditions(eb: RootScope, filter: ThreadFilter): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [eb("r.status", "=", filter.status)];
  const { visibility } = filter;
  // `<>` rather than `in (…)`: a one-sided test keeps the planner on the order's index.
  if (visibility.kind === "one") conditions.push(eb("r.visibility", "=", visibility.value));
  if (visibility.kind === "notPrivate") conditions.push(eb("r.visibility", "<>", "private"));
  if (filter.featured) conditions.push(eb("r.featured_at", "is not", null));
  if (filter.format) conditions.push(eb("r.format", "=", filter.format));
  if (filter.published) {
    conditions.push(eb("r.published_at", ">=", filter.published.start));
    conditions.push(eb("r.published_at", "<", filter.published.end));
  }
  if (filter.title === "any")
    conditions.push(eb.and([eb("r.title", "is not", null), eb("r.title", "<>", "")]));
  if (filter.title === "none") conditions.push(eb.or([eb("r.title", "is", null), eb("r.title", "=", "")]));
  if (filter.replies === "any") conditions.push(eb("r.thread_reply_count", ">", 0));
  if (filter.replies === "none") conditions.push(eb("r.thread_reply_count", "=", 0));
  if (filter.language) conditions.push(eb("r.language", "=", filter.language));
  if (filter.media) conditions.push(mediaCondition(eb, filter.media));
  if (filter.collections) conditions.push(collectionFilter(eb, filter.collections));
  if (filter.collectionIds) conditions.push(collectionIdFilter(eb, filter.collectionIds));
  return conditions;
}

/** `media_kinds` is a bit set of the root's attachment kinds; `&` works alike in SQLite and PostgreSQL. */
function mediaCondition(eb: RootScope, media: MediaFilter): Expression<SqlBool> {
  if (media.kind === "any") return eb("r.media_kinds", "<>", 0);
  if (media.kind === "none") return eb("r.media_kinds", "=", 0);
  return sql<SqlBool>`(${eb.ref("r.media_kinds")} & ${sql.lit(media.mask)}) <> 0`;
}
