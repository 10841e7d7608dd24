import { type AttachmentView, toAttachmentView } from "../attachments/attachment-view.js";
import type { PublicCollectionRef } from "../collections/public-refs.js";
import type { EngineContext } from "../deps.js";
import type { MediaRow } from "../files/media-rows.js";
import type { PostRow } from "./post-query.js";

/** Read options shared by post-returning operations. */
export interface ViewOptions {
  /** `markdown`: `bodyMarkdown` replaces `body`, `bodyHtml` and `bodyText`. */
  content?: "markdown" | undefined;
}

/** A post in the editing view. @see spec § Post (editing view) */
export type PostView = Record<string, unknown> & {
  id: string;
  format: string;
  status: string;
  visibility: string;
  slug: string;
  threadId: string;
  attachments: AttachmentView[];
};

/** A post in the reading view. @see spec § Public post (reading view) */
export type PublicPostView = Record<string, unknown> & {
  id: string;
  slug: string;
  permalink: string;
  attachments: AttachmentView[];
};

/** The editing view of a post row. Quote posts carry no `title`/`url` keys at all. */
export function toPostView(
  ctx: EngineContext,
  row: PostRow,
  attachments: MediaRow[],
  options: ViewOptions = {},
): PostView {
  const isQuote = row.format === "quote";
  return {
    id: row.id,
    format: row.format,
    status: row.status,
    visibility: row.root_visibility,
    pinnedAt: row.pinned_at,
    featuredAt: row.featured_at,
    slug: row.slug,
    ...(isQuote ? {} : { title: row.title, url: row.url }),
    sourceName: row.source_name,
    sourceUrl: row.source_url,
    displayTitle: row.display_title,
    ...bodyFields(row, options, true),
    quoteText: row.quote_text,
    summary: row.summary,
    rating: row.rating,
    ...threadFields(row),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    attachments: attachments.map((media) => toAttachmentView(ctx, media, { public: false })),
  };
}

/**
 * The reading view of a post row: no `body`, `displayTitle` or `collectionIds`; adds `permalink`
 * and the link preview fields. Title for note and link, `url` for link, source fields for quote.
 * `collections` are its Thread's collections (see collections/public-refs.ts).
 */
export function toPublicPostView(
  ctx: EngineContext,
  row: PostRow,
  attachments: MediaRow[],
  options: ViewOptions = {},
  collections: PublicCollectionRef[] = [],
): PublicPostView {
  return {
    id: row.id,
    format: row.format,
    status: "published",
    visibility: row.root_visibility,
    pinnedAt: row.pinned_at,
    featuredAt: row.featured_at,
    slug: row.slug,
    permalink: permalinkOf(ctx, row),
    ...(row.format === "quote"
      ? { sourceName: row.source_name, sourceUrl: row.source_url }
      : { title: row.title }),
    ...(row.format === "link" ? { url: row.url } : {}),
    ...bodyFields(row, options, false),
    quoteText: row.quote_text,
    summary: row.summary,
    rating: row.rating,
    ...threadFields(row),
    previewKind: row.preview_kind,
    previewProvider: row.preview_provider,
    previewImageUrl: row.preview_image_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    attachments: attachments.map((media) => toAttachmentView(ctx, media, { public: true })),
    collections,
  };
}

/** The public path of a post, site prefix included: its oldest custom URL, else `/{slug}`. */
export function permalinkOf(ctx: EngineContext, row: Pick<PostRow, "slug" | "permalink_path">): string {
  return `${ctx.settings.sitePathPrefix}${row.permalink_path ?? `/${row.slug}`}`;
}

function bodyFields(row: PostRow, options: ViewOptions, withEditorBody: boolean) {
  if (options.content === "markdown") return { bodyMarkdown: row.body_markdown };
  return withEditorBody
    ? { body: row.body, bodyHtml: row.body_html, bodyText: row.body_text }
    : { bodyHtml: row.body_html, bodyText: row.body_text };
}

function threadFields(row: PostRow) {
  const isRoot = row.id === row.thread_id;
  return {
    replyToId: row.reply_to_id,
    threadId: row.thread_id,
    language: row.language,
    quietReply: isRoot ? false : row.quiet_reply === 1,
    publishedAt: row.status === "published" ? row.published_at : null,
    lastActivityAt: row.root_last_activity_at,
    threadUpdatedAt: row.root_thread_updated_at,
    threadPostCount: row.root_post_count,
  };
}
