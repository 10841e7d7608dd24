import {
  type Access,
  type Caller,
  type Engine,
  EngineError,
  internalCaller,
  isAcceptedOnly,
  isEngineError,
  isRawAnswer,
  isStreamedFile,
  publicCaller,
  type SiteSettings,
} from "@quire/core";
import type * as z from "zod";
import { isInternalAdmin, resolveOwner } from "./auth.js";
import { readText } from "./body-text.js";
import { corsHeaders, corsPolicy, preflightHeaders } from "./cors.js";
import { formInput } from "./form-input.js";
import { linksFor } from "./links.js";
import { openApiDocument } from "./openapi.js";
import type { HandlerOptions } from "./options.js";
import { createRateLimits, isSearchRoute, setRetryAfter } from "./rate-limit.js";
import { rawResponse } from "./raw-response.js";
import { requestBody } from "./request-body.js";
import { ResponseCache } from "./response-cache.js";
import { errorOf, errorResponse, json } from "./responses.js";
import { createRouter, type RouteMatch } from "./router.js";
import { routes } from "./routes.js";
import { createSessionPages } from "./sessions.js";
import { streamInput } from "./stream-input.js";
import { streamedResponse } from "./streamed-response.js";
import { inputFromText } from "./text-input.js";
import { unknownFields } from "./unknown-fields.js";

/** A Fetch-API request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The engine as one Fetch handler: `/api/*` routes, `/healthz`, `/readyz`, CORS and the site
 * prefix. Mount it in any server that speaks `Request`/`Response`. Every error, including unknown
 * paths and unexpected failures, answers in the spec's `{ error, code, details? }` shape.
 *
 * What a site owner may change (the path prefix, whether the public API is on) is read from the
 * engine's settings once per request (from its cached copy, so without a query while it is fresh)
 * and handed to the operation, never from these options.
 */
export function createHandler(engine: Engine, options: HandlerOptions = {}): FetchHandler {
  const router = createRouter(routes);
  const cors = corsPolicy(options.corsOrigins);
  const logger = options.logger ?? engine.context.logger;
  const siteOrigin = options.siteOrigin?.replace(/\/+$/, "");
  let openApi: ReturnType<typeof openApiDocument> | undefined;
  // Sign-in pages and per-client limits (docs/authentication.md).
  const limits = createRateLimits(options);
  const sessionPages = createSessionPages(engine, options, limits);
  // Public answers kept as bytes by site version, with ETags (docs/caching.md).
  const responseCache = new ResponseCache(options.responseCache);

  async function respond(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method === "OPTIONS")
      return new Response(null, { status: 204, headers: preflightHeaders(cors, request) });
    // The site version and the settings at it: one read of one row (docs/caching.md). With the
    // database down, the probes still answer (the prefix unknown, by the path's last segment).
    const site = await engine.siteState().catch(async (err: unknown) => {
      if (url.pathname.endsWith("/healthz")) return json({ status: "ok" });
      if (url.pathname.endsWith("/readyz")) return json({ status: "unavailable" }, 503);
      throw err;
    });
    if (site instanceof Response) return site;
    const settings = site.settings;
    const prefix = normalizePrefix(settings.sitePathPrefix);
    const path = stripPrefix(url.pathname, prefix);
    if (path === "/healthz") return json({ status: "ok" });
    if (path === "/readyz") {
      return (await engine.isReady()) ? json({ status: "ok" }) : json({ status: "unavailable" }, 503);
    }
    if (path === null) return errorOf("NOT_FOUND", `No route for ${url.pathname}`);
    const page = await sessionPages?.(request, path, prefix);
    if (page) return page;
    if (path === "/api/mcp" && options.mcp) {
      let caller: Caller;
      try {
        await engine.checkSiteAvailable(null);
        caller = await callerFor("owner", request, settings);
      } catch (err) {
        if (!isEngineError(err)) throw err;
        // An MCP answer is never cached, a refusal of its caller included.
        const response = errorResponse(err);
        response.headers.set("cache-control", "no-store");
        return response;
      }
      return options.mcp(request, {
        caller,
        links: linksFor(prefix, siteOrigin ?? url.origin),
        body: requestBody(request, options.requestBody?.(request)),
      });
    }
    if (path === "/api/openapi.json") {
      if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed(["GET", "HEAD"]);
      openApi ??= openApiDocument(engine.operations.values());
      return json({ ...openApi, servers: [{ url: prefix === "" ? "/" : prefix }] });
    }
    const match = router.match(request.method, path);
    if (!match) {
      // A closed surface answers 404 for every method, as if absent: a 405 would name its methods.
      const allowed = router.allowedMethods(
        path,
        (route) => !isClosed(engine.operations.get(route.operation)?.access, route.path, settings),
      );
      if (allowed.length > 0) return methodNotAllowed(allowed);
      return errorOf("NOT_FOUND", `No route for ${request.method} ${url.pathname}`);
    }
    const operation = engine.operations.get(match.route.operation);
    if (!operation) throw new Error(`Route ${match.route.path} names no operation`);
    // A suspended site answers 503 before any auth; internal routes stay open to the operator.
    if (operation.access !== "internal") await engine.checkSiteAvailable(operation.id);
    const caller = await callerFor(operation.access, request, settings, match.route.path);
    if (isSearchRoute(match.route.path)) await limits.check("search", request);
    const cacheKey = wantsUnknownFieldWarning(request)
      ? undefined
      : responseCache.keyOf(request, url, operation.access, siteOrigin);
    const kept = cacheKey === undefined ? undefined : responseCache.lookup(request, site.version, cacheKey);
    if (kept) return kept;
    const input = await readInput(
      match,
      operation.input,
      url,
      request,
      requestBody(request, options.requestBody?.(request)),
    );
    try {
      const result = await engine.execute(match.route.operation, input.values, caller, {
        links: linksFor(prefix, siteOrigin ?? url.origin),
        settings,
        siteChecked: true,
        ...(input.trailing ? { trailingInput: input.trailing } : {}),
      });
      const publicRead = operation.access === "public" && match.route.method === "GET";
      if (isRawAnswer(result))
        return publicRead
          ? responseCache.respond(request, result, site.version, cacheKey)
          : rawResponse(request, result);
      // Accepted, not acted on (a webhook event the site leaves alone): 202. @see docs/github-sync.md
      if (isAcceptedOnly(result)) return json(result, 202);
      if (isStreamedFile(result)) return streamedResponse(result);
      const response = publicRead
        ? await responseCache.respond(request, result, site.version, cacheKey)
        : match.route.status === 204
          ? new Response(null, { status: 204 })
          : json(result, match.route.status ?? 200);
      if (wantsUnknownFieldWarning(request)) {
        const ignored = unknownFields(operation.input, input.values);
        if (ignored.length > 0) {
          response.headers.set(unknownFieldsHeader, ignored.map(headerSafe).join(", "));
          response.headers.set("access-control-expose-headers", unknownFieldsHeader);
        }
        if (!options.warnUnknownFields) response.headers.set("preference-applied", "warn-unknown-fields");
      }
      return response;
    } finally {
      await input.close?.();
    }
  }

  /** Asked for by the handler's option, or by this request (`Prefer: warn-unknown-fields`). */
  function wantsUnknownFieldWarning(request: Request): boolean {
    if (options.warnUnknownFields) return true;
    const prefer = request.headers.get("prefer");
    const tokens = prefer?.split(/[,;]/) ?? [];
    return tokens.some((token) => token.trim().toLowerCase() === "warn-unknown-fields");
  }

  async function callerFor(
    access: Access,
    request: Request,
    settings: SiteSettings,
    routePath?: string,
  ): Promise<Caller> {
    if (isClosed(access, routePath, settings)) throw new EngineError("NOT_FOUND", "Not found");
    if (access === "public") return publicCaller;
    if (access === "internal") {
      if (!isInternalAdmin(request, options))
        throw new EngineError("UNAUTHORIZED", "Internal admin token required");
      return internalCaller;
    }
    const owner = await resolveOwner(engine, request, options);
    if (!owner) throw new EngineError("UNAUTHORIZED", "Authentication required");
    return owner;
  }

  /**
   * Whether a route of this access is absent here: an internal one without INTERNAL_ADMIN_TOKEN
   * (spec § Authentication rule 4), a public one while PUBLIC_API_ENABLED is false (but those that
   * setting does not close).
   */
  function isClosed(
    access: Access | undefined,
    routePath: string | undefined,
    settings: SiteSettings,
  ): boolean {
    if (access === "internal") return !options.internalAdminToken;
    if (access !== "public" || settings.publicApiEnabled) return false;
    return routePath === undefined || !publicApiIndependent.some((base) => routePath.startsWith(base));
  }

  return async (request) => {
    let response: Response;
    try {
      response = await respond(request);
    } catch (err) {
      if (!isEngineError(err)) {
        logger.error("unexpected error", { method: request.method, url: request.url, error: describe(err) });
      }
      response = errorResponse(err);
      setRetryAfter(response, err);
    }
    // RFC 9110 § 11.6.1: a 401 names the scheme that would succeed.
    if (response.status === 401 && !response.headers.has("www-authenticate")) {
      response.headers.set("www-authenticate", 'Bearer realm="quire"');
    }
    for (const [name, value] of Object.entries(corsHeaders(cors, request.headers.get("origin")))) {
      response.headers.set(name, value);
    }
    return request.method === "HEAD" ? withoutContent(response) : response;
  };
}

/**
 * The answer to a HEAD request: the GET answer's status and headers (its Content-Length and ETag
 * included), without the content, whose stream (a file being read, say) is cancelled.
 */
function withoutContent(response: Response): Response {
  if (response.body === null) return response;
  void response.body.cancel().catch(() => {});
  return new Response(null, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * Public routes that PUBLIC_API_ENABLED does not close: the discovery read (open while the site is
 * listed, spec § Authentication rule 5; the operation checks that) and inbound webhooks (their
 * operations check their own secret or signature).
 */
const publicApiIndependent = ["/api/discover/", "/api/telegram", "/api/github-sync/webhook"];

/** An operation's raw input as read from a request, with what a streamed form leaves for later. */
interface RequestInput {
  values: Record<string, unknown>;
  trailing?: () => Promise<Record<string, unknown>>;
  close?: () => Promise<void>;
}

/**
 * Path params, then the JSON body, the query string, the raw body or the form as the operation's
 * raw input; text is converted to values through the operation's schema. Bodies come from
 * `rawBody` when the server supplied one, else from `request.body`.
 */
async function readInput(
  match: RouteMatch,
  schema: z.ZodType,
  url: URL,
  request: Request,
  rawBody: AsyncIterable<Uint8Array> | undefined,
): Promise<RequestInput> {
  const query = () => inputFromText(schema, [...url.searchParams]);
  switch (match.route.input) {
    case "query":
      return { values: { ...query(), ...match.params } };
    case "body":
      checkJsonContentType(request);
      return { values: { ...(await readJsonObject(request, rawBody)), ...match.params } };
    case "queryAndBody":
      checkJsonContentType(request);
      return { values: { ...query(), ...(await readJsonObject(request, rawBody)), ...match.params } };
    case "stream":
      return { values: { ...query(), ...streamInput(request, rawBody), ...match.params } };
    case "form": {
      const body = rawBody ?? request.body ?? (async function* () {})();
      const form = await formInput(schema, body, request.headers.get("content-type"));
      return {
        values: { ...query(), ...form.input, ...match.params },
        trailing: form.trailing,
        close: form.close,
      };
    }
    case "none":
      return { values: { ...match.params } };
    case "raw":
      // A signed webhook: the bytes as sent (the signature covers them) and the headers.
      return {
        values: {
          body: rawBody ?? request.body ?? new Uint8Array(0),
          headers: Object.fromEntries(request.headers),
          ...match.params,
        },
      };
  }
}

/** The response header naming ignored request fields (see `warnUnknownFields`). */
const unknownFieldsHeader = "quire-unknown-fields";

/** A 405 naming the methods the path has. */
function methodNotAllowed(allowed: string[]): Response {
  const response = errorOf("METHOD_NOT_ALLOWED", `This path answers ${allowed.join(", ")} only`);
  response.headers.set("allow", [...allowed, "OPTIONS"].join(", "));
  return response;
}

/**
 * A JSON route reads its body as JSON when the request declares no type, a JSON type
 * (`application/json`, `application/*+json`) or `text/plain` (what `fetch` declares for a string
 * body). Any other declared type (a form, `multipart/form-data`, `application/octet-stream`) is a
 * body the route would misread: 415, before the body is read. @see docs/errors.md
 */
function checkJsonContentType(request: Request): void {
  const header = request.headers.get("content-type");
  if (header === null || header.trim() === "") return;
  const type = (header.split(";")[0] ?? "").trim().toLowerCase();
  if (type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type) || type === "text/plain")
    return;
  throw new EngineError(
    "UNSUPPORTED_MEDIA_TYPE",
    `This route reads a JSON body; send it with Content-Type: application/json (got ${type})`,
  );
}

/** Largest JSON body read, in bytes; post bodies are at most 1M characters (docs/posts.md). */
const maxJsonBytes = 10 * 1024 * 1024;

async function readJsonObject(
  request: Request,
  rawBody: AsyncIterable<Uint8Array> | undefined,
): Promise<Record<string, unknown>> {
  const text = await readText(request, maxJsonBytes, rawBody);
  if (text.trim() === "") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new EngineError("VALIDATION_ERROR", "The request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new EngineError("VALIDATION_ERROR", "The request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

function normalizePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\/+$/, "");
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/** The path below the site prefix, or null when the request is outside it. */
function stripPrefix(pathname: string, prefix: string): string | null {
  if (prefix === "") return pathname;
  if (pathname === prefix) return "/";
  if (pathname.startsWith(`${prefix}/`)) return pathname.slice(prefix.length);
  return pathname === "/healthz" || pathname === "/readyz" ? pathname : null;
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/**
 * A field path as a header can carry it: printable ASCII as it is; any other character, and `%`
 * and `,` (the list's separator), as UTF-8 percent-escapes (`日本` → `%E6%97%A5%E6%9C%AC`). A
 * header holds bytes: a name above U+00FF, with a line break or a NUL, could not be set at all.
 * docs/errors.md § Unknown fields
 */
function headerSafe(field: string): string {
  const encoder = new TextEncoder();
  return field.replace(/[^\x21-\x24\x26-\x2b\x2d-\x7e]/gu, (character) =>
    Array.from(
      encoder.encode(character),
      (byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`,
    ).join(""),
  );
}
