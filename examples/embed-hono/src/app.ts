import type { Caller, Engine, Storage } from "@quire/core";
import { createFileHandler, createHandler } from "@quire/http-adapter";
import { Hono } from "hono";
import { parse } from "hono/utils/cookie";
import type { SessionStore, User } from "./sessions.js";

/** The host app's session cookie. */
export const sessionCookie = "app_session";

/** Options for {@link createApp}. */
export interface AppOptions {
  engine: Engine;
  sessions: SessionStore;
  /**
   * The storage the engine was given, when it is a local folder (`createFsStorage` with
   * `publicBaseUrl: "/media"`): its files are served under `/media`. Leave it out for S3 storage,
   * whose files the bucket or its CDN serves.
   */
  storage?: Storage | undefined;
}

/**
 * An existing Hono app with Quire mounted beside its own routes: everything under `/api/*` goes to
 * Quire's Fetch handler, and the app's own session cookie signs its owner in to Quire.
 */
export function createApp({ engine, sessions, storage }: AppOptions): Hono {
  const currentUser = (request: Request): User | undefined => {
    const id = parse(request.headers.get("cookie") ?? "", sessionCookie)[sessionCookie];
    return id ? sessions.get(id) : undefined;
  };

  const quire = createHandler(engine, {
    // The app's session stands for the site owner; without it Quire falls back to API tokens.
    authenticate: (request): Caller | null =>
      currentUser(request)?.siteOwner && isSameOriginOrSafe(request) ? { role: "owner" } : null,
    // Cross-origin access off: only this app's pages call the API with the cookie.
    corsOrigins: [],
  });

  const app = new Hono();

  // The app's own routes, untouched by Quire.
  app.get("/", (c) => c.text("My app, with a Quire-powered blog under /api"));
  app.get("/me", (c) => {
    const user = currentUser(c.req.raw);
    return user ? c.json(user) : c.json({ message: "Not signed in" }, 401);
  });

  // Quire: one line. (`app.mount("/", quire)` works too, but would answer every unknown path.)
  app.all("/api/*", (c) => quire(c.req.raw));
  app.get("/healthz", (c) => quire(c.req.raw));
  if (storage) {
    const files = createFileHandler(storage, { prefix: "/media" });
    app.on(["GET", "HEAD"], "/media/*", (c) => files(c.req.raw));
  }

  return app;
}

/**
 * A cookie is sent on cross-site requests too, so a write counts as the owner's only when the
 * browser says it comes from this origin (or it is not a browser write at all: no `Origin`).
 */
function isSameOriginOrSafe(request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD") return true;
  const origin = request.headers.get("origin");
  return origin === null || origin === new URL(request.url).origin;
}
