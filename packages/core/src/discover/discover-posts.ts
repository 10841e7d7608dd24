import type { SiteSettings } from "../deps.js";
import { notFound } from "../errors.js";
import { feedEntryIds } from "../feeds/feed-entries.js";
import { defineOperation } from "../operation.js";
import { markVariesWithTime } from "../shared/varies-with-time.js";
import { type DiscoveredPost, discoverPostsInput, discoverPostsOutput } from "./discover-schemas.js";

/**
 * True while the site is listed for discovery: `DISCOVER=latest`, not `NOINDEX`, feeds on.
 * `PUBLIC_API_ENABLED` plays no part (spec § Authentication rule 5).
 */
export function isListedForDiscovery(settings: SiteSettings): boolean {
  return settings.discover !== "off" && !settings.noindex && settings.rssFeedsEnabled;
}

/**
 * Whether the site's latest and featured feeds list each asked post now: the feeds' own selection
 * (feeds/feed-entries.ts: published Thread roots, the visibility rule of each feed, the publish
 * delay, `RSS_FEED_LIMIT` entries), read once per feed whatever the number of IDs. An unknown ID,
 * a reply, a draft or a post the feeds have not reached yet answers `false` twice; with `lang`, so
 * does a post in another language. 404 while the site is not listed. @see docs/discovery.md
 */
export const discoverPosts = defineOperation({
  id: "discover.posts",
  access: "public",
  description:
    "Tells for each post ID whether the site's latest and featured feeds list it now (discovery listing).",
  hints: { readOnly: true, idempotent: true },
  input: discoverPostsInput,
  output: discoverPostsOutput,
  run: async (ctx, input): Promise<{ posts: DiscoveredPost[] }> => {
    if (!isListedForDiscovery(ctx.settings)) throw notFound("Discovery listing");
    const options = {
      limit: ctx.settings.rssFeedLimit,
      cutoff: ctx.clock.now() - ctx.settings.rssPublishDelaySeconds,
    };
    const [latest, featured] = await Promise.all([
      feedEntryIds(ctx.db, { kind: "latest" }, options),
      feedEntryIds(ctx.db, { kind: "featured" }, options),
    ]);
    const listed = (entries: { id: string; language: string | null }[]) =>
      new Set(
        entries
          // An untagged post is written in the site's language (docs/languages.md).
          .filter(
            (entry) =>
              input.lang === undefined || (entry.language ?? ctx.settings.siteLanguage) === input.lang,
          )
          .map((entry) => entry.id),
      );
    const inLatest = listed(latest);
    const inFeatured = listed(featured);
    // The feeds move with the clock (the publish delay, posts dated later): never cached by version.
    return markVariesWithTime({
      posts: input.id.map((id) => ({ id, latest: inLatest.has(id), featured: inFeatured.has(id) })),
    });
  },
});
