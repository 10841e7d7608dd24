import type { Caller, Links, Logger } from "@quire/core";
import type { RateLimitOptions } from "./rate-limit.js";
import type { ResponseCacheOption } from "./response-cache.js";

/**
 * How a handler is mounted and secured. What a site owner may change (the path prefix, whether the
 * public API is on) is not here: the handler asks the engine's settings. @see docs/configuration.md
 */
export interface HandlerOptions {
  /** Accepted as a Bearer token only on requests to a local host from this machine (`DEV_API_TOKEN`). */
  devApiToken?: string | undefined;
  /** The only token `/api/internal/*` accepts; unset, those paths answer 404 (`INTERNAL_ADMIN_TOKEN`). */
  internalAdminToken?: string | undefined;
  /**
   * Allowed cross-origin callers (`CORS_ORIGINS`): undefined or `"*"` allows all, `""` or `[]`
   * turns cross-origin access off, otherwise a list of origins.
   */
  corsOrigins?: string | string[] | undefined;
  /** Maps the embedding app's own session to a caller (e.g. the site owner); null/undefined falls through to tokens. */
  authenticate?: (request: Request) => Caller | null | undefined | Promise<Caller | null | undefined>;
  /** The remote address of a request, supplied by the server; needed for `devApiToken`. */
  clientAddress?: (request: Request) => string | undefined;
  /**
   * The site's public origin (`SITE_ORIGIN`, e.g. `https://example.com`): feeds, sitemap.xml and
   * robots.txt write their absolute links under it, and translations.resolve judges full URLs by
   * it. Unset, the request's own origin is used, which behind a proxy may be an internal address.
   */
  siteOrigin?: string | undefined;
  /**
   * The bytes of a request's body as the server received them, read instead of `request.body` by
   * every route that takes a body (JSON, file bodies and forms). A Node server can pass its
   * `IncomingMessage`: the bytes then go from the socket to the store without a Web-stream
   * conversion on the way, which makes large uploads faster (the reference server does; see
   * docs/media.md). Iteration may stop early (a body over a limit): the server then decides what
   * happens to the rest. Return undefined to use `request.body`.
   */
  requestBody?: (request: Request) => AsyncIterable<Uint8Array> | undefined;
  /**
   * Handler for `/api/mcp` (`createMcpHandler` of `@quire/mcp-adapter`), injected so this package
   * does not depend on the MCP SDK. It runs behind the same authentication as `/api/*` and gets the
   * caller, the handler's links and the server's raw body. Unset, `/api/mcp` is an unknown path.
   */
  mcp?: (
    request: Request,
    context: { caller: Caller; links: Links; body: AsyncIterable<Uint8Array> | undefined },
  ) => Promise<Response>;
  /**
   * Names the request fields an operation ignored (unknown body or query fields, spec § Conventions
   * rule 1) in a `Quire-Unknown-Fields` response header, so a typo such as `bodyMarkdwn` does not
   * pass silently. Off by default; a single request can ask for it with
   * `Prefer: warn-unknown-fields`. The request is still answered as if the fields were absent.
   * @see docs/errors.md
   */
  warnUnknownFields?: boolean;
  /**
   * Owner sign-in with a session cookie: serves `GET`/`POST /signin` and `POST /signout` (under
   * the site prefix) and accepts the cookie wherever a token is accepted, after `authenticate` and
   * Bearer tokens. Unset, no cookie is read and those paths are absent. @see docs/authentication.md
   */
  sessions?: SessionOptions | undefined;
  /**
   * Per-client limits on sign-in attempts and search (`RATE_LIMIT_ENABLED`,
   * `RATE_LIMIT_SEARCH_PER_MIN`), keyed by `clientAddress`; `false` turns them off. Default:
   * 10 sign-in attempts a minute, search unlimited. @see docs/authentication.md § Rate limits
   */
  rateLimit?: RateLimitOptions | false | undefined;
  /**
   * The cache of public answers (`/api/public/*`, feeds, the sitemap, robots.txt and any other
   * route of a public operation), kept as bytes by site content version: `{ maxBytes }` bounds its
   * memory (default 32 MiB, least recently used out first), `false` turns it off. Every write moves
   * the version in its transaction, so no answer is served stale, whichever process wrote. ETags
   * and `If-None-Match` → 304 work with the cache off too. @see docs/caching.md
   */
  responseCache?: ResponseCacheOption | undefined;
  /** Where unexpected errors are reported; defaults to the engine's logger. */
  logger?: Logger;
}

/** The session cookie's settings (the handler's `sessions` option). */
export interface SessionOptions {
  /** Signs the cookie (HMAC-SHA256): `AUTH_SECRET`, at least 32 characters. Changing it ends every session. */
  secret: string;
  /** The cookie's name; default `quire_session`. */
  cookieName?: string;
  /** How long a session lasts, in seconds; default 30 days (at most 400 days). */
  maxAgeSeconds?: number;
  /**
   * Whether the cookie is `Secure`. Default: when the request arrived over https or `siteOrigin`
   * is https. Behind a proxy that ends TLS, pass a function (e.g. reading `X-Forwarded-Proto`).
   */
  secure?: boolean | ((request: Request) => boolean);
}
