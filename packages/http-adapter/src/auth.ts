import { type Caller, constantTimeEqual, type Engine, EngineError } from "@quire/core";
import { corsPolicy } from "./cors.js";
import type { HandlerOptions } from "./options.js";
import { sessionCookies } from "./session-cookie.js";

const localHostnames = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/**
 * The site owner behind a request, or null: the embedding app's `authenticate` hook first, then a
 * Bearer API token (or `DEV_API_TOKEN`, only to a local host from the same machine), then — when
 * the handler has `sessions` and the request sends no Authorization header — the session cookie.
 * A cookie-authenticated write must come from the site itself or an origin listed by name in
 * `corsOrigins`; otherwise 403 FORBIDDEN (cross-site request forgery). Bearer requests are not
 * checked: a browser never adds that header by itself.
 * @see spec § Authentication, docs/authentication.md
 */
export async function resolveOwner(
  engine: Engine,
  request: Request,
  options: HandlerOptions,
): Promise<Caller | null> {
  const fromApp = await options.authenticate?.(request);
  if (fromApp) return fromApp;
  const token = bearerToken(request);
  if (token) {
    if (
      options.devApiToken &&
      constantTimeEqual(token, options.devApiToken) &&
      isLocalRequest(request, options)
    ) {
      return { role: "owner" };
    }
    return engine.verifyApiToken(token);
  }
  if (request.headers.has("authorization")) return null;
  return sessionOwner(engine, request, options);
}

/** The caller of a valid session cookie, refusing a cookie-authenticated cross-site write. */
async function sessionOwner(
  engine: Engine,
  request: Request,
  options: HandlerOptions,
): Promise<Caller | null> {
  const cookies = sessionCookies(options);
  if (!cookies) return null;
  for (const secret of await cookies.tokens(request)) {
    const caller = await engine.verifySession(secret);
    if (!caller) continue;
    if (!isSafeMethod(request.method) && !isSameSiteRequest(request, options)) {
      throw new EngineError(
        "FORBIDDEN",
        "Cross-site request refused: a write signed in by cookie must come from this site or an origin listed in CORS_ORIGINS",
      );
    }
    return caller;
  }
  return null;
}

/** Methods that change nothing, sent cross-site by links and images. */
export function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD" || method === "OPTIONS";
}

/**
 * A request a browser sent from this site (or from an origin the site lists by name): its
 * `Sec-Fetch-Site` is `same-origin`, or its `Origin` is the request's own origin, `siteOrigin`, or
 * one listed in `corsOrigins` (`*` does not count). A request with neither header is refused:
 * every current browser sends `Origin` on a POST, PUT or DELETE.
 */
export function isSameSiteRequest(request: Request, options: HandlerOptions): boolean {
  if (request.headers.get("sec-fetch-site") === "same-origin") return true;
  const origin = request.headers.get("origin");
  if (!origin || origin === "null") return false;
  if (origin === new URL(request.url).origin) return true;
  if (options.siteOrigin && origin === options.siteOrigin.replace(/\/+$/, "")) return true;
  const cors = corsPolicy(options.corsOrigins);
  return cors !== "*" && cors.has(origin);
}

/** True when the request carries exactly the internal admin token. */
export function isInternalAdmin(request: Request, options: HandlerOptions): boolean {
  const token = bearerToken(request);
  return (
    token !== null &&
    options.internalAdminToken !== undefined &&
    constantTimeEqual(token, options.internalAdminToken)
  );
}

/** The Bearer token of a request, if any. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] ?? null;
}

/**
 * A request addressed to a local host name and coming from this machine. The client address comes
 * from the server (`clientAddress` option); without it no request counts as local.
 */
export function isLocalRequest(request: Request, options: HandlerOptions): boolean {
  const address = options.clientAddress?.(request);
  if (!address || !isLoopbackAddress(address)) return false;
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const hostname = host.replace(/:\d+$/, "").toLowerCase();
  return localHostnames.has(hostname) || hostname.endsWith(".localtest.me");
}

function isLoopbackAddress(address: string): boolean {
  return address === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}
