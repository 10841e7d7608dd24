import * as z from "zod";
import { languageTag } from "../posts/post-language.js";
import { typeId } from "../shared/type-id.js";

/** Most post IDs one discovery request may ask about. */
export const maxDiscoverIds = 50;

/**
 * Input of `discover.posts`: 1 to 50 post IDs (over HTTP `?id=a&id=b` or `?id=a,b`), and
 * optionally a language the posts must be written in.
 */
export const discoverPostsInput = z.object({
  id: z
    .array(typeId("pst"))
    .min(1, "Send at least one post ID")
    .max(maxDiscoverIds, `At most ${maxDiscoverIds} post IDs per request`)
    .describe("Post IDs (pst_…), 1 to 50; the answer keeps their order"),
  lang: languageTag
    .optional()
    .describe("A language tag: a post in another language counts as in neither feed"),
});

/** The answer of `discover.posts`: one entry per asked ID, in the order asked. */
export const discoverPostsOutput = z.object({
  posts: z.array(
    z.object({
      id: z.string().describe("The post ID as asked"),
      latest: z.boolean().describe("The site's latest feed lists this post now"),
      featured: z.boolean().describe("The site's featured feed lists this post now"),
    }),
  ),
});

/** One entry of the answer. */
export type DiscoveredPost = z.output<typeof discoverPostsOutput>["posts"][number];
