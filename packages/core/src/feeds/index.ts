import { collectionFeed, featuredFeed, latestFeed, mainFeed } from "./site-feeds.js";
import { robots, sitemap } from "./site-files.js";

export { entryId } from "./feed-document.js";
export { entityTag, isRawAnswer, type RawAnswer } from "./raw-answer.js";

/** The reader's documents: feeds, the sitemap and robots.txt (docs/feeds.md). */
export const feedOperations = [mainFeed, latestFeed, featuredFeed, collectionFeed, sitemap, robots] as const;
