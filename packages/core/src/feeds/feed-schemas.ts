import * as z from "zod";

/** A feed's format: RSS 2.0, Atom 1.0 or JSON Feed 1.1. */
export const feedFormat = z.enum(["rss", "atom", "json"]);
/** One feed format. */
export type FeedFormat = z.infer<typeof feedFormat>;

/**
 * The origin links are written under (`https://example.com`), for in-process callers such as a
 * static-site build. Over HTTP it is the request's origin and cannot be sent.
 */
const originParam = z
  .url({ protocol: /^https?$/ })
  .refine((value) => new URL(value).origin === value.replace(/\/+$/, ""), {
    message: "Expected an origin such as https://example.com, without a path",
  })
  .optional();

/** Input of the latest, featured and main feeds. */
export const siteFeedInput = z.object({
  format: feedFormat.default("rss"),
  origin: originParam,
});

/** Input of a collection's feed. */
export const collectionFeedInput = z.object({
  slug: z.string().min(1).max(200),
  format: feedFormat.default("rss"),
  origin: originParam,
});

/** Input of the sitemap and robots.txt. */
export const siteFileInput = z.object({ origin: originParam });
