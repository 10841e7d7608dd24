import { oldestAliasesOf } from "../custom-urls/aliases.js";
import { notFound } from "../errors.js";
import { defineOperation, type OperationContext } from "../operation.js";
import { permalinkOf } from "../posts/post-view.js";
import { type FeedHead, feedContentTypes, feedDocument, uuidUrn } from "./feed-document.js";
import { type FeedSelection, feedEntries } from "./feed-entries.js";
import { collectionFeedInput, type FeedFormat, siteFeedInput } from "./feed-schemas.js";
import { checkFeedsOpen, feedPaths, type SiteBase, siteBase, siteUrl } from "./feed-site.js";
import { type RawAnswer, rawAnswer } from "./raw-answer.js";

const formats: FeedFormat[] = ["rss", "atom", "json"];

function selfUrls(base: SiteBase, path: (format: string) => string): Record<FeedFormat, string> {
  return Object.fromEntries(formats.map((format) => [format, siteUrl(base, path(format))])) as Record<
    FeedFormat,
    string
  >;
}

/** Builds one feed: its entries, then the document in the asked format. */
async function buildFeed(
  ctx: OperationContext,
  format: FeedFormat,
  selection: FeedSelection,
  head: FeedHead,
  base: SiteBase,
): Promise<RawAnswer> {
  const rows = await feedEntries(ctx.db, selection, {
    limit: ctx.settings.rssFeedLimit,
    cutoff: ctx.clock.now() - ctx.settings.rssPublishDelaySeconds,
  });
  // permalinkOf includes the prefix; the origin comes first.
  const body = feedDocument(
    format,
    head,
    rows,
    ctx.settings,
    (row) => `${base.origin}${permalinkOf(ctx, row)}`,
  );
  const lastModified = rows.reduce((max, row) => Math.max(max, row.updated_at), 0);
  // With a publish delay, an entry appears when its delay has passed, with no write to tell caches.
  return rawAnswer(feedContentTypes[format], body, lastModified, {
    variesWithTime: ctx.settings.rssPublishDelaySeconds > 0,
  });
}

/** The latest or featured feed of the site, as the main feed or under its own name. */
function siteFeed(
  ctx: OperationContext,
  kind: "latest" | "featured",
  format: FeedFormat,
  base: SiteBase,
  main: boolean,
) {
  const { siteName, siteDescription } = ctx.settings;
  const head: FeedHead = {
    // The feed's address without its format: the same feed in RSS, Atom and JSON.
    id: siteUrl(base, main ? "/feeds" : `/feeds/${kind}`),
    title: kind === "featured" ? `${siteName} — Featured` : siteName,
    description: siteDescription,
    homeUrl: siteUrl(base, "/"),
    selfUrls: selfUrls(base, main ? feedPaths.main : feedPaths[kind]),
  };
  return buildFeed(ctx, format, { kind }, head, base);
}

/** The newest public Threads: what the homepage lists, newest publication first. */
export const latestFeed = defineOperation({
  id: "feeds.latest",
  access: "public",
  description: "The feed of the newest public Threads (RSS 2.0, Atom 1.0 or JSON Feed 1.1) as a document.",
  hints: { readOnly: true, idempotent: true },
  input: siteFeedInput,
  run: async (ctx, input): Promise<RawAnswer> => {
    checkFeedsOpen(ctx);
    return siteFeed(ctx, "latest", input.format, siteBase(ctx, input.origin), false);
  },
});

/** The featured Threads, newest publication first. */
export const featuredFeed = defineOperation({
  id: "feeds.featured",
  access: "public",
  description: "The feed of the featured Threads (RSS 2.0, Atom 1.0 or JSON Feed 1.1) as a document.",
  hints: { readOnly: true, idempotent: true },
  input: siteFeedInput,
  run: async (ctx, input): Promise<RawAnswer> => {
    checkFeedsOpen(ctx);
    return siteFeed(ctx, "featured", input.format, siteBase(ctx, input.origin), false);
  },
});

/** The site's main feed: the latest or the featured one, as MAIN_RSS_FEED says. */
export const mainFeed = defineOperation({
  id: "feeds.main",
  access: "public",
  description: "The site's main feed, latest or featured Threads as MAIN_RSS_FEED says, as a document.",
  hints: { readOnly: true, idempotent: true },
  input: siteFeedInput,
  run: async (ctx, input): Promise<RawAnswer> => {
    checkFeedsOpen(ctx);
    return siteFeed(ctx, ctx.settings.mainRssFeed, input.format, siteBase(ctx, input.origin), true);
  },
});

/** One collection's Threads, newest publication first; 404 for an unknown slug. */
export const collectionFeed = defineOperation({
  id: "feeds.collection",
  access: "public",
  description: "The feed of one collection's public Threads, by the collection's slug, as a document.",
  hints: { readOnly: true, idempotent: true },
  input: collectionFeedInput,
  run: async (ctx, input): Promise<RawAnswer> => {
    checkFeedsOpen(ctx);
    const base = siteBase(ctx, input.origin);
    const collection = await ctx.db
      .selectFrom("collections")
      .select(["id", "slug", "title", "description"])
      .where("slug", "=", input.slug)
      .executeTakeFirst();
    if (!collection) throw notFound("Collection", input.slug);
    const aliases = await oldestAliasesOf(ctx.db, { targetType: "collection", targetIds: [collection.id] });
    const head: FeedHead = {
      // By ID, so the feed stays the same feed when the collection's slug changes.
      id: uuidUrn(collection.id, "collection"),
      title: `${ctx.settings.siteName} — ${collection.title}`,
      description: collection.description ?? "",
      homeUrl: siteUrl(base, aliases.get(collection.id) ?? `/${collection.slug}`),
      selfUrls: selfUrls(base, (format) => feedPaths.collection(collection.slug, format)),
    };
    return buildFeed(ctx, input.format, { kind: "collection", collectionId: collection.id }, head, base);
  },
});
