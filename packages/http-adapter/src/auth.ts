import type { Caller, Engine } from "@quire/core";
import type { HandlerOptions } from "./options.js";

const localHostnames = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/**
 * The site owner behind a request, or null: the embedding app's `authenticate` hook first, then a
 * Bearer API token, then `DEV_API_TOKEN` (only to a local host from the same machine).
 * @see spec § Authentication
 */
export async function resolveOwner(
  engine: Engine,
  request: Request,
  options: HandlerOptions,
): Promise<Caller | null> {
  const fromApp = await options.authenticate?.(request);
  if (fromApp) return fromApp;
  const token = bearerToken(request);
  if (!token) return null;
  if (options.devApiToken && safeEqual(token, options.devApiToken) && isLocalRequest(request, options)) {
    return { role: "owner" };
  }
  return engine.verifyApiToken(token);
}

/** True when the request carries exactly the internal admin token. */
export function isInternalAdmin(request: Request, options: HandlerOptions): boolean {
  const token = bearerToken(request);
  return (
    token !== null && options.internalAdminToken !== undefined && safeEqual(token, options.internalAdminToken)
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

function safeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}
