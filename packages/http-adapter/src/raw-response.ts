/**
 * A document answer (a feed, the sitemap, robots.txt) as an HTTP response: one implementation with
 * the public JSON answers' ETag / `If-None-Match` handling, in response-cache.ts.
 * @see docs/feeds.md § Caching, docs/caching.md
 */
export { rawResponse } from "./response-cache.js";
