import { invalidField } from "../errors.js";

/**
 * First path segments the site keeps for its own routes (API, media files, health checks, feeds,
 * sign-in, built-in pages, files at the root, the static build's own files). An address a client
 * claims — a post slug or `path`, a collection slug, a custom URL — may not start with one: its
 * permalink would be served by the route instead. Listed in docs/posts.md § Slugs and addresses.
 */
export const reservedSegments: ReadonlySet<string> = new Set([
  // The static build's own files at the root: a custom URL `404.html` made the build fail (its
  // redirect page was written as the folder `404.html/`, where the 404 page goes).
  "404.html",
  "index.html",
  "api",
  "admin",
  "archive",
  "assets",
  "auth",
  "collections",
  "dashboard",
  "discover",
  "favicon.ico",
  "feed",
  "feeds",
  "healthz",
  "login",
  "logout",
  "mcp",
  "media",
  "new",
  "page",
  "posts",
  "public",
  "readyz",
  "robots-txt",
  "robots.txt",
  "rss",
  "search",
  "settings",
  "signin",
  "signout",
  "signup",
  "sitemap",
  "sitemap.xml",
  "static",
  "tags",
  "threads",
  "upload",
  "uploads",
  "well-known",
]);

/**
 * True when an address (a slug, or a path without its leading slash) is the site's own: its first
 * segment is reserved, or starts with `_` or `.` (never served as a custom URL).
 * @see spec § Custom URL, § Errors condition 2
 */
export function isReservedAddress(address: string): boolean {
  const first = address.replace(/^\/+/, "").split("/")[0] ?? "";
  return reservedSegments.has(first) || first.startsWith("_") || first.startsWith(".");
}

/** Refuses a reserved address a client asked for: 400 naming the field that sent it. */
export function checkNotReserved(address: string, field: string): void {
  if (isReservedAddress(address)) {
    const first = address.replace(/^\/+/, "").split("/")[0];
    throw invalidField(field, `"/${first}" is reserved for the site's own routes`);
  }
}
