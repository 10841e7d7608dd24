import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { createEngine, type Engine } from "@quire/core";
import { openDatabase } from "@quire/core/node";
import { createFileHandler, createHandler } from "@quire/http-adapter";
import { createFsStorage } from "@quire/storage-fs";

/** What the route files call: the API handler and the media-file handler of one engine. */
export interface QuireRoutes {
  engine: Engine;
  api: (request: Request) => Promise<Response>;
  media: (request: Request) => Promise<Response>;
}

/** The site's path prefix: empty, or the app's `basePath` (`/blog`). */
const prefix = process.env.SITE_PATH_PREFIX ?? "";

/**
 * Opens the engine from the environment: `QUIRE_DATA_DIR` (default `data`, relative to the
 * directory `next` runs in) holds the SQLite file and the media folder, `DATABASE_URL` may point at
 * PostgreSQL instead, and `INTERNAL_ADMIN_TOKEN` (16+ characters) turns on `/api/internal/*`, where
 * the first API token is created. Media files are served by `app/media/[...key]/route.ts`.
 * `SITE_PATH_PREFIX` (say `/blog`) serves the site below a path: next.config.mjs makes it the app's
 * `basePath` at build time, and Quire gets it as `sitePathPrefix` (see `withPrefix`).
 */
async function start(): Promise<QuireRoutes> {
  const dataDir = resolve(process.env.QUIRE_DATA_DIR ?? "data");
  mkdirSync(dataDir, { recursive: true }); // SQLite creates the file, not its folder
  const storage = createFsStorage({ root: `${dataDir}/media`, publicBaseUrl: `${prefix}/media` });
  const db = await openDatabase({ url: process.env.DATABASE_URL ?? `${dataDir}/quire.db` });
  const engine = createEngine({ db, storage, settings: { sitePathPrefix: prefix } });
  await engine.migrate();
  const internalAdminToken = process.env.INTERNAL_ADMIN_TOKEN;
  if (internalAdminToken !== undefined && internalAdminToken.length < 16) {
    throw new Error("INTERNAL_ADMIN_TOKEN must be at least 16 characters long");
  }
  return {
    engine,
    // Next.js answers cross-origin requests of its own pages; API tokens authenticate scripts.
    // To sign the owner in with the app's session (NextAuth, iron-session, …), add
    // `authenticate: (request) => (isOwner(request) ? { role: "owner" } : null)`.
    api: withPrefix(createHandler(engine, { corsOrigins: [], internalAdminToken })),
    media: withPrefix(createFileHandler(storage, { prefix: `${prefix}/media` })),
  };
}

/**
 * Next.js strips its `basePath` from the URL a route handler receives (`/blog/api/posts` arrives as
 * `/api/posts`), while Quire, told the site lives under `/blog`, routes on the full path and writes
 * `/blog` into permalinks, media URLs and feed links. Put the prefix back before handing over; the
 * body stream moves to the new Request unread.
 */
function withPrefix(handler: (request: Request) => Promise<Response>) {
  if (!prefix) return handler;
  return (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) return handler(request);
    url.pathname = `${prefix}${url.pathname}`;
    return handler(new Request(url, request));
  };
}

// One engine per server process. `next dev` re-evaluates modules on every change; keeping the
// promise on globalThis stops each reload from opening another database connection.
const holder = globalThis as typeof globalThis & { quireRoutes?: Promise<QuireRoutes> };

/** The process's engine and handlers, started on first use (not at import: `next build` imports route files). */
export function quireRoutes(): Promise<QuireRoutes> {
  holder.quireRoutes ??= start().catch((error: unknown) => {
    holder.quireRoutes = undefined; // let the next request try again (say, once the database is up)
    throw error;
  });
  return holder.quireRoutes;
}

/**
 * The API handler, in the shape Next.js wants from a route file's method exports. It passes the
 * `Request` on untouched: reading its body first (`request.json()`) would leave Quire nothing to read.
 */
export async function quire(request: Request): Promise<Response> {
  return (await quireRoutes()).api(request);
}

/** The media-file handler, for `app/media/[...key]/route.ts`. */
export async function quireMedia(request: Request): Promise<Response> {
  return (await quireRoutes()).media(request);
}
