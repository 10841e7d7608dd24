// Calls the two route files the way the Next.js App Router would: a path picks the route file, the
// method picks its export. Only for trying and testing the example without Next.js.
import * as api from "./app/api/[...path]/route.js";
import * as media from "./app/media/[...key]/route.js";

type RouteModule = Partial<Record<string, unknown>>;

/** Picks the route file for a path and its export for the method, as the App Router does. */
export function dispatch(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const route: RouteModule | undefined = pathname.startsWith("/api/")
    ? api
    : pathname.startsWith("/media/")
      ? media
      : undefined;
  const handler = route?.[request.method];
  if (!route) return Promise.resolve(new Response("Not found", { status: 404 }));
  if (typeof handler !== "function")
    return Promise.resolve(new Response("Method not allowed", { status: 405 }));
  return (handler as (request: Request) => Promise<Response>)(request);
}
