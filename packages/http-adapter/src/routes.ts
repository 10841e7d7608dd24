import type { OperationId } from "@quire/core";
import type { Route } from "./router.js";

/**
 * Every HTTP route: method, path, operation, input source, success status. Who may call a route is
 * its operation's `access`. Adapters hold no domain rule; this table is the whole mapping.
 * @see spec § Endpoints
 */
// biome-ignore format: a table reads best one route per line
export const routes: readonly Route[] = [
  { method: "GET", path: "/api/posts", operation: "posts.list", input: "query" },
  { method: "POST", path: "/api/posts", operation: "posts.create", input: "body", status: 201 },
  { method: "GET", path: "/api/posts/slug", operation: "posts.slug", input: "query" },
  { method: "GET", path: "/api/posts/:id", operation: "posts.get", input: "query" },
  { method: "PUT", path: "/api/posts/:id", operation: "posts.update", input: "body" },
  { method: "DELETE", path: "/api/posts/:id", operation: "posts.delete", input: "none" },
  { method: "PUT", path: "/api/posts/:id/language", operation: "posts.setLanguage", input: "body" },
  { method: "GET", path: "/api/posts/:id/translations", operation: "translations.list", input: "none" },
  { method: "POST", path: "/api/posts/:id/translations", operation: "translations.link", input: "body" },
  { method: "DELETE", path: "/api/posts/:id/translations", operation: "translations.unlink", input: "none" },
  { method: "GET", path: "/api/posts/:id/translations/candidates", operation: "translations.candidates", input: "query" },
  { method: "GET", path: "/api/posts/:id/translations/resolve", operation: "translations.resolve", input: "query" },
  { method: "GET", path: "/api/attachments/:id/content", operation: "attachments.getContent", input: "none" },
  { method: "GET", path: "/api/public/posts/:slug", operation: "publicPosts.get", input: "query" },
  { method: "GET", path: "/api/internal/tokens", operation: "tokens.list", input: "none" },
  { method: "POST", path: "/api/internal/tokens", operation: "tokens.create", input: "body", status: 201 },
  { method: "DELETE", path: "/api/internal/tokens/:id", operation: "tokens.revoke", input: "none" },
  { method: "GET", path: "/api/threads", operation: "threads.list", input: "query" },
  { method: "GET", path: "/api/threads/:id", operation: "threads.get", input: "query" },
  { method: "GET", path: "/api/threads/:id/posts", operation: "threads.listPosts", input: "query" },
  { method: "GET", path: "/api/public/threads", operation: "publicThreads.list", input: "query" },
  { method: "GET", path: "/api/public/threads/:slug", operation: "publicThreads.get", input: "query" },
  { method: "GET", path: "/api/public/threads/:slug/posts", operation: "publicThreads.listPosts", input: "query" },
  { method: "POST", path: "/api/uploads/init", operation: "uploads.init", input: "body" },
  { method: "PUT", path: "/api/uploads/:id/body", operation: "uploads.putBody", input: "stream", status: 204 },
  { method: "PUT", path: "/api/uploads/:id/part", operation: "uploads.putPart", input: "stream" },
  { method: "PUT", path: "/api/uploads/:id/poster", operation: "uploads.putPoster", input: "stream", status: 204 },
  { method: "POST", path: "/api/uploads/:id/complete", operation: "uploads.complete", input: "body", status: 201 },
  { method: "POST", path: "/api/uploads/:id/abort", operation: "uploads.abort", input: "none" },
  { method: "POST", path: "/api/upload", operation: "media.upload", input: "form", status: 201 },
  { method: "GET", path: "/api/media", operation: "media.list", input: "query" },
  { method: "GET", path: "/api/media/:id", operation: "media.get", input: "none" },
  { method: "PUT", path: "/api/media/:id", operation: "media.update", input: "body" },
  { method: "DELETE", path: "/api/media/:id", operation: "media.delete", input: "none" },
  { method: "GET", path: "/api/custom-urls", operation: "customUrls.list", input: "query" },
  { method: "POST", path: "/api/custom-urls", operation: "customUrls.create", input: "body", status: 201 },
  { method: "PUT", path: "/api/custom-urls/:id", operation: "customUrls.update", input: "body" },
  { method: "DELETE", path: "/api/custom-urls/:id", operation: "customUrls.delete", input: "none" },
  { method: "GET", path: "/api/public/resolve", operation: "addresses.resolve", input: "query" },
  { method: "GET", path: "/api/collections", operation: "collections.list", input: "query" },
  { method: "POST", path: "/api/collections", operation: "collections.create", input: "body", status: 201 },
  { method: "GET", path: "/api/collections/slug", operation: "collections.checkSlug", input: "query" },
  { method: "POST", path: "/api/collections/directory-items", operation: "directoryItems.create", input: "body", status: 201 },
  { method: "PUT", path: "/api/collections/directory-items/:id", operation: "directoryItems.update", input: "body" },
  { method: "PUT", path: "/api/collections/directory-items/:id/move", operation: "directoryItems.move", input: "body" },
  { method: "DELETE", path: "/api/collections/directory-items/:id", operation: "directoryItems.delete", input: "none" },
  { method: "GET", path: "/api/collections/:id", operation: "collections.get", input: "none" },
  { method: "PUT", path: "/api/collections/:id", operation: "collections.update", input: "body" },
  { method: "DELETE", path: "/api/collections/:id", operation: "collections.delete", input: "none" },
  { method: "POST", path: "/api/collections/:id/threads", operation: "collections.addThread", input: "body" },
  { method: "DELETE", path: "/api/collections/:id/threads/:threadId", operation: "collections.removeThread", input: "none" },
  { method: "PUT", path: "/api/collections/:id/threads/:threadId/pin", operation: "collections.pinThread", input: "none" },
  { method: "DELETE", path: "/api/collections/:id/threads/:threadId/pin", operation: "collections.unpinThread", input: "none" },
  { method: "GET", path: "/api/smart-collections", operation: "smartCollections.list", input: "query" },
  { method: "POST", path: "/api/smart-collections", operation: "smartCollections.create", input: "body", status: 201 },
  { method: "GET", path: "/api/smart-collections/slug", operation: "smartCollections.slug", input: "query" },
  { method: "POST", path: "/api/smart-collections/preview", operation: "smartCollections.preview", input: "queryAndBody" },
  { method: "GET", path: "/api/smart-collections/:id", operation: "smartCollections.get", input: "none" },
  { method: "PUT", path: "/api/smart-collections/:id", operation: "smartCollections.update", input: "body" },
  { method: "DELETE", path: "/api/smart-collections/:id", operation: "smartCollections.delete", input: "none" },
  { method: "GET", path: "/api/smart-collections/:id/threads", operation: "smartCollections.listThreads", input: "query" },
  { method: "GET", path: "/api/public/smart-collections/:slug/threads", operation: "publicSmartCollections.listThreads", input: "query" },
  { method: "GET", path: "/api/nav-items", operation: "navItems.list", input: "none" },
  { method: "POST", path: "/api/nav-items", operation: "navItems.create", input: "body", status: 201 },
  { method: "PUT", path: "/api/nav-items/:id", operation: "navItems.update", input: "body" },
  { method: "PUT", path: "/api/nav-items/:id/move", operation: "navItems.move", input: "body" },
  { method: "DELETE", path: "/api/nav-items/:id", operation: "navItems.delete", input: "none" },
  { method: "GET", path: "/api/settings", operation: "settings.get", input: "none" },
  { method: "PUT", path: "/api/settings", operation: "settings.update", input: "body" },
  { method: "PUT", path: "/api/settings/import", operation: "settings.import", input: "body" },
  { method: "POST", path: "/api/export/hugo", operation: "export.hugo", input: "queryAndBody" },
  { method: "DELETE", path: "/api/settings/:key", operation: "settings.delete", input: "none" },
  { method: "GET", path: "/api/search", operation: "posts.search", input: "query" },
  // The reader's documents, outside /api (docs/feeds.md): no query is read, `:format` is rss, atom or json.
  { method: "GET", path: "/rss", operation: "feeds.main", input: "none" },
  { method: "GET", path: "/feeds/:format", operation: "feeds.main", input: "none" },
  { method: "GET", path: "/feeds/latest/:format", operation: "feeds.latest", input: "none" },
  { method: "GET", path: "/feeds/featured/:format", operation: "feeds.featured", input: "none" },
  { method: "GET", path: "/feeds/collections/:slug/:format", operation: "feeds.collection", input: "none" },
  { method: "GET", path: "/sitemap.xml", operation: "feeds.sitemap", input: "none" },
  { method: "GET", path: "/robots.txt", operation: "feeds.robots", input: "none" },
];

/**
 * Operations deliberately without a route: called in-process only, each named in
 * docs/embedding.md. A test fails when an operation is neither routed nor listed here.
 */
export const inProcessOnly: readonly OperationId[] = [
  // Owner sign-in: served by the handler's /signin and /signout pages (sessions.ts) and the CLI.
  "owner.setPassword",
  "sessions.signIn",
  "sessions.signOut",
  "sessions.revokeAll",
];
