import { mkdirSync } from "node:fs";
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

/**
 * Opens the engine from the environment: `QUIRE_DATA_DIR` (default `data`) holds the SQLite file
 * and the media folder, `DATABASE_URL` may point at PostgreSQL instead. Media files are served by
 * `src/app/media/[...key]/route.ts` under `/media`.
 */
async function start(): Promise<QuireRoutes> {
  const dataDir = process.env.QUIRE_DATA_DIR ?? "data";
  mkdirSync(dataDir, { recursive: true }); // SQLite creates the file, not its folder
  const storage = createFsStorage({ root: `${dataDir}/media`, publicBaseUrl: "/media" });
  const db = await openDatabase({ url: process.env.DATABASE_URL ?? `${dataDir}/quire.db` });
  const engine = createEngine({ db, storage });
  await engine.migrate();
  return {
    engine,
    // Next.js answers cross-origin requests of its own pages; API tokens authenticate scripts.
    // To sign the owner in with the app's session (NextAuth, iron-session, …), add
    // `authenticate: (request) => (isOwner(request) ? { role: "owner" } : null)`.
    api: createHandler(engine, { corsOrigins: [] }),
    media: createFileHandler(storage, { prefix: "/media" }),
  };
}

// One engine per server process. `next dev` re-evaluates modules on every change; keeping the
// promise on globalThis stops each reload from opening another database connection.
const holder = globalThis as typeof globalThis & { quireRoutes?: Promise<QuireRoutes> };

/** The process's engine and handlers, started on first use (not at import, so builds stay offline). */
export function quireRoutes(): Promise<QuireRoutes> {
  holder.quireRoutes ??= start();
  return holder.quireRoutes;
}

/** The API handler, in the shape Next.js wants from a route file's method exports. */
export async function quire(request: Request): Promise<Response> {
  return (await quireRoutes()).api(request);
}

/** The media-file handler, for `app/media/[...key]/route.ts`. */
export async function quireMedia(request: Request): Promise<Response> {
  return (await quireRoutes()).media(request);
}
