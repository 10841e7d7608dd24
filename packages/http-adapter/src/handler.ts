import { type Caller, chunksOf, type Engine, EngineError, publicCaller } from "@quire/core";
import { isInternalAdmin, resolveOwner } from "./auth.js";
import { corsHeaders, corsPolicy, preflightHeaders } from "./cors.js";
import { formInput, streamInput } from "./multipart-input.js";
import type { HandlerOptions } from "./options.js";
import { errorOf, errorResponse, json } from "./responses.js";
import { createRouter, type RouteMatch, type Surface } from "./router.js";
import { routes } from "./routes.js";

/** A Fetch-API request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The engine as one Fetch handler: `/api/*` routes, `/healthz`, `/readyz`, CORS and the site
 * prefix. Mount it in any server that speaks `Request`/`Response`. Every error, including unknown
 * paths and unexpected failures, answers in the spec's `{ error, code, details? }` shape.
 */
export function createHandler(engine: Engine, options: HandlerOptions = {}): FetchHandler {
  const router = createRouter(routes);
  const prefix = normalizePrefix(options.sitePathPrefix ?? engine.context.config.sitePathPrefix);
  const cors = corsPolicy(options.corsOrigins);
  const logger = options.logger ?? engine.context.logger;

  async function respond(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = stripPrefix(url.pathname, prefix);
    if (request.method === "OPTIONS")
      return new Response(null, { status: 204, headers: preflightHeaders(cors, request) });
    if (path === "/healthz") return json({ status: "ok" });
    if (path === "/readyz") {
      return (await engine.isReady()) ? json({ status: "ok" }) : json({ status: "unavailable" }, 503);
    }
    if (path === null) return errorOf("NOT_FOUND", `No route for ${url.pathname}`);
    if (path === "/api/mcp" && options.mcp) {
      await callerFor("owner", request);
      return options.mcp(request);
    }
    const match = router.match(request.method, path);
    if (!match) return errorOf("NOT_FOUND", `No route for ${request.method} ${url.pathname}`);
    const caller = await callerFor(match.route.surface, request);
    const input = await readInput(match, url, request, options.requestBody?.(request));
    const result = await engine.execute(match.route.operation, input, caller);
    if (match.route.status === 204) return new Response(null, { status: 204 });
    return json(result, match.route.status ?? 200);
  }

  async function callerFor(surface: Surface, request: Request): Promise<Caller> {
    if (surface === "public") {
      if (options.publicApiEnabled === false) throw new EngineError("NOT_FOUND", "Not found");
      return publicCaller;
    }
    if (surface === "internal") {
      if (!options.internalAdminToken) throw new EngineError("NOT_FOUND", "Not found");
      if (!isInternalAdmin(request, options))
        throw new EngineError("UNAUTHORIZED", "Internal admin token required");
      return { role: "internal" };
    }
    const owner = await resolveOwner(engine, request, options);
    if (!owner) throw new EngineError("UNAUTHORIZED", "Authentication required");
    return owner;
  }

  return async (request) => {
    let response: Response;
    try {
      response = await respond(request);
    } catch (err) {
      if (!(err instanceof EngineError)) {
        logger.error("unexpected error", { method: request.method, url: request.url, error: describe(err) });
      }
      response = errorResponse(err);
    }
    for (const [name, value] of Object.entries(corsHeaders(cors, request.headers.get("origin")))) {
      response.headers.set(name, value);
    }
    return response;
  };
}

/**
 * Path params, then the JSON body or the query string, as the operation's raw input. Bodies come
 * from `rawBody` when the server supplied one, else from `request.body`.
 */
async function readInput(
  match: RouteMatch,
  url: URL,
  request: Request,
  rawBody: AsyncIterable<Uint8Array> | undefined,
): Promise<Record<string, unknown>> {
  const { input } = match.route;
  if (input === "query") return { ...firstValues(url.searchParams), ...match.params };
  if (input === "body") return { ...(await readJsonObject(request, rawBody)), ...match.params };
  if (input === "stream") {
    return { ...firstValues(url.searchParams), ...streamInput(request, rawBody), ...match.params };
  }
  if (input === "form") {
    return { ...firstValues(url.searchParams), ...formInput(request, rawBody), ...match.params };
  }
  return { ...match.params };
}

function firstValues(params: URLSearchParams): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of params) if (!(name in values)) values[name] = value;
  return values;
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

/** The body as UTF-8 text, refusing (400) one larger than `limit` bytes before reading it all. */
async function readText(
  request: Request,
  limit: number,
  rawBody: AsyncIterable<Uint8Array> | undefined,
): Promise<string> {
  const tooLarge = () =>
    new EngineError("VALIDATION_ERROR", `The request body is larger than ${limit} bytes`);
  if (Number(request.headers.get("content-length") ?? 0) > limit) throw tooLarge();
  const body = rawBody ?? request.body;
  if (!body) return "";
  const decoder = new TextDecoder();
  let text = "";
  let received = 0;
  // Leaving the loop early (too large) cancels the stream, or hands a raw body back to the server.
  for await (const chunk of chunksOf(body)) {
    received += chunk.byteLength;
    if (received > limit) throw tooLarge();
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
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
