import type { HandlerOptions, SessionOptions } from "./options.js";

/** The cookie's default name. */
export const defaultSessionCookieName = "quire_session";

/**
 * The session cookie: the session's secret and an HMAC-SHA256 of it under `AUTH_SECRET`
 * (`<secret>.<mac>`, base64url), so a forged or altered cookie is refused before any database
 * read, and changing the secret ends every session. The database keeps only a hash of the secret;
 * signing out deletes that row, so a copied cookie stops working too.
 */
export interface SessionCookies {
  name: string;
  /** The cookie value for a session secret. */
  sign(token: string): Promise<string>;
  /** The session secrets of the request's cookies whose MAC is right (usually zero or one). */
  tokens(request: Request): Promise<string[]>;
  /** A `Set-Cookie` value: the session for `maxAgeSeconds`, or (value null) one that clears it. */
  header(value: string | null, maxAgeSeconds: number, request: Request, path: string): string;
}

const cache = new WeakMap<SessionOptions, SessionCookies>();

/** The cookie machinery of a handler's `sessions` option, built once per options object. */
export function sessionCookies(options: HandlerOptions): SessionCookies | null {
  const sessions = options.sessions;
  if (!sessions) return null;
  let cookies = cache.get(sessions);
  if (!cookies) {
    cookies = createSessionCookies(sessions, options.siteOrigin);
    cache.set(sessions, cookies);
  }
  return cookies;
}

function createSessionCookies(options: SessionOptions, siteOrigin: string | undefined): SessionCookies {
  if (typeof options.secret !== "string" || options.secret.length < 32) {
    throw new Error("sessions.secret (AUTH_SECRET) must be at least 32 characters");
  }
  const name = options.cookieName ?? defaultSessionCookieName;
  const key = crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(options.secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
  const secureFor = (request: Request): boolean => {
    if (typeof options.secure === "function") return options.secure(request);
    if (typeof options.secure === "boolean") return options.secure;
    return new URL(request.url).protocol === "https:" || (siteOrigin ?? "").startsWith("https:");
  };
  return {
    name,
    async sign(token) {
      const mac = await crypto.subtle.sign("HMAC", await key, new TextEncoder().encode(token));
      return `${token}.${base64Url(new Uint8Array(mac))}`;
    },
    async tokens(request) {
      const found: string[] = [];
      for (const value of cookieValues(request.headers.get("cookie"), name)) {
        const dot = value.lastIndexOf(".");
        if (dot < 0) continue;
        const token = value.slice(0, dot);
        const mac = fromBase64Url(value.slice(dot + 1));
        if (!/^qs_[A-Za-z0-9_-]{16,128}$/.test(token) || !mac || mac.length !== 32) continue;
        const ok = await crypto.subtle.verify("HMAC", await key, mac, new TextEncoder().encode(token));
        if (ok) found.push(token);
      }
      return found;
    },
    header(value, maxAgeSeconds, request, path) {
      const parts = [
        `${name}=${value ?? ""}`,
        `Path=${path}`,
        `Max-Age=${value === null ? 0 : Math.max(0, Math.floor(maxAgeSeconds))}`,
        "HttpOnly",
        "SameSite=Lax",
      ];
      if (secureFor(request)) parts.push("Secure");
      return parts.join("; ");
    },
  };
}

/** Every value of the named cookie in a `Cookie` header (a name may repeat across paths). */
export function cookieValues(header: string | null, name: string): string[] {
  if (!header) return [];
  const values: string[] = [];
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (value.length <= 512) values.push(value);
  }
  return values;
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}
