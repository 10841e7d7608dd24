import type { OperationId } from "@quire/core";

/**
 * Where a route's input comes from besides its path parameters: the query string, a JSON body,
 * nothing, the raw body as a stream (`stream`: query plus `body`, `contentLength`, `contentType`),
 * or a streamed `multipart/form-data` body (`form`: query plus its fields, the file part as
 * `file`, `filename` and `contentType`, another file part `x` as `x` and `xContentType`), or
 * `queryAndBody`: a JSON body with query parameters beside it (the body wins on a name both send),
 * or `raw`: the body's bytes untouched as `body` and the request's headers as `headers` (names in
 * lower case), for a webhook whose operation checks a signature over the exact bytes.
 * Text is converted to the operation's values from its schema (see text-input.ts).
 */
export type InputSource = "query" | "body" | "queryAndBody" | "none" | "stream" | "form" | "raw";

/**
 * One line of the route table. Who may call it is not written here: it is the operation's
 * `access` (public, owner, internal), so a route cannot disagree with its operation.
 */
export interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path after the site prefix, with `:name` parameters, e.g. `/api/posts/:id`. */
  path: string;
  /** The operation it runs; an id the engine does not have fails to compile. */
  operation: OperationId;
  input: InputSource;
  /** Success status (default 200). */
  status?: number;
}

interface CompiledRoute extends Route {
  segments: string[];
}

/** A matched route with its decoded path parameters. */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/**
 * Matches paths against the table. Literal segments win over parameters (so `/api/posts/slug`
 * is not read as a post ID), whatever the table order.
 */
export function createRouter(routes: readonly Route[]) {
  const compiled: CompiledRoute[] = routes
    .map((route) => ({ ...route, segments: route.path.split("/").filter(Boolean) }))
    .sort((a, b) => specificity(b.segments) - specificity(a.segments));
  return {
    /**
     * The route for a method and path; `pathExists` tells a wrong method from an unknown path.
     * HEAD runs the GET route (RFC 9110 § 9.3.2: the same answer without its content; the handler
     * drops the body).
     */
    match(method: string, path: string): RouteMatch | null {
      const parts = path.split("/").filter(Boolean);
      const wanted = method === "HEAD" ? "GET" : method;
      for (const route of compiled) {
        if (route.method !== wanted) continue;
        const params = matchSegments(route.segments, parts);
        if (params) return { route, params };
      }
      return null;
    },
    /**
     * The methods some route `open` accepts has for this path (empty for an unknown path), for a
     * 405's `Allow`.
     */
    allowedMethods(path: string, open: (route: Route) => boolean = () => true): string[] {
      const parts = path.split("/").filter(Boolean);
      const methods = new Set<string>();
      for (const route of compiled) {
        if (!matchSegments(route.segments, parts) || !open(route)) continue;
        methods.add(route.method);
        if (route.method === "GET") methods.add("HEAD");
      }
      return [...methods];
    },
  };
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (const [i, segment] of segments.entries()) {
    const part = parts[i] as string;
    if (segment.startsWith(":")) {
      try {
        params[segment.slice(1)] = decodeURIComponent(part);
      } catch {
        return null;
      }
    } else if (segment !== part) {
      return null;
    }
  }
  return params;
}

function specificity(segments: string[]): number {
  return segments.reduce((score, segment, i) => score + (segment.startsWith(":") ? 0 : 2 ** (16 - i)), 0);
}
