import type { Route } from "./router.js";

/**
 * Every HTTP route: method, path, operation, input source, surface, success status. Adapters hold
 * no domain rule; this table is the whole mapping. @see spec § Endpoints
 */
// biome-ignore format: a table reads best one route per line
export const routes: Route[] = [
  { method: "GET", path: "/api/posts", operation: "posts.list", input: "query", surface: "owner" },
  { method: "POST", path: "/api/posts", operation: "posts.create", input: "body", surface: "owner", status: 201 },
  { method: "GET", path: "/api/posts/slug", operation: "posts.slug", input: "query", surface: "owner" },
  { method: "GET", path: "/api/posts/:id", operation: "posts.get", input: "query", surface: "owner" },
  { method: "PUT", path: "/api/posts/:id", operation: "posts.update", input: "body", surface: "owner" },
  { method: "DELETE", path: "/api/posts/:id", operation: "posts.delete", input: "none", surface: "owner" },
  { method: "GET", path: "/api/attachments/:id/content", operation: "attachments.getContent", input: "none", surface: "owner" },
  { method: "GET", path: "/api/public/posts/:slug", operation: "publicPosts.get", input: "query", surface: "public" },
  { method: "GET", path: "/api/internal/tokens", operation: "tokens.list", input: "none", surface: "internal" },
  { method: "POST", path: "/api/internal/tokens", operation: "tokens.create", input: "body", surface: "internal", status: 201 },
  { method: "DELETE", path: "/api/internal/tokens/:id", operation: "tokens.revoke", input: "none", surface: "internal" },
  { method: "GET", path: "/api/threads", operation: "threads.list", input: "query", surface: "owner" },
  { method: "GET", path: "/api/threads/:id", operation: "threads.get", input: "query", surface: "owner" },
  { method: "GET", path: "/api/threads/:id/posts", operation: "threads.listPosts", input: "query", surface: "owner" },
  { method: "GET", path: "/api/public/threads", operation: "publicThreads.list", input: "query", surface: "public" },
  { method: "GET", path: "/api/public/threads/:slug", operation: "publicThreads.get", input: "query", surface: "public" },
  { method: "GET", path: "/api/public/threads/:slug/posts", operation: "publicThreads.listPosts", input: "query", surface: "public" },
  { method: "POST", path: "/api/uploads/init", operation: "uploads.init", input: "body", surface: "owner" },
  { method: "PUT", path: "/api/uploads/:id/body", operation: "uploads.putBody", input: "stream", surface: "owner", status: 204 },
  { method: "PUT", path: "/api/uploads/:id/part", operation: "uploads.putPart", input: "stream", surface: "owner" },
  { method: "PUT", path: "/api/uploads/:id/poster", operation: "uploads.putPoster", input: "stream", surface: "owner", status: 204 },
  { method: "POST", path: "/api/uploads/:id/complete", operation: "uploads.complete", input: "body", surface: "owner", status: 201 },
  { method: "POST", path: "/api/uploads/:id/abort", operation: "uploads.abort", input: "none", surface: "owner" },
  { method: "POST", path: "/api/upload", operation: "media.upload", input: "form", surface: "owner", status: 201 },
  { method: "GET", path: "/api/media", operation: "media.list", input: "query", surface: "owner" },
  { method: "GET", path: "/api/media/:id", operation: "media.get", input: "none", surface: "owner" },
  { method: "PUT", path: "/api/media/:id", operation: "media.update", input: "body", surface: "owner" },
  { method: "DELETE", path: "/api/media/:id", operation: "media.delete", input: "none", surface: "owner" },
];
