import type { Links, OperationId } from "@quire/core";
import { routes } from "./routes.js";

/**
 * The addresses this handler serves that core writes into its answers, derived from the route
 * table and the site's path prefix, so core builds no `/api/...` URL of its own.
 */
export function linksFor(prefix: string, siteOrigin?: string): Links {
  return {
    siteOrigin,
    attachmentContent: (id) => `${prefix}${pathOf("attachments.getContent", { id })}`,
    uploadBody: (id) => `${prefix}${pathOf("uploads.putBody", { id })}`,
    uploadPart: (id) => `${prefix}${pathOf("uploads.putPart", { id })}`,
  };
}

/**
 * The links of a handler mounted at `prefix` ("" or like "/blog"), for an engine that also answers
 * in-process and should name the same addresses: `createEngine({ …, links: apiLinks("/blog") })`.
 */
export function apiLinks(prefix = ""): Links {
  return linksFor(prefix.replace(/\/+$/, ""));
}

const routePaths = new Map(routes.map((route) => [route.operation, route.path]));

function pathOf(operation: OperationId, params: Record<string, string>): string {
  const path = routePaths.get(operation);
  if (path === undefined) throw new Error(`No route serves ${operation}`);
  return path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
}
