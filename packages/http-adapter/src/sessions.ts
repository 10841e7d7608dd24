import { type Engine, EngineError, internalCaller, isEngineError, toErrorBody } from "@quire/core";
import { isSameSiteRequest } from "./auth.js";
import { readText } from "./body-text.js";
import type { HandlerOptions } from "./options.js";
import { type RateLimits, setRetryAfter } from "./rate-limit.js";
import { requestBody } from "./request-body.js";
import { errorResponse, json } from "./responses.js";
import { sessionCookies } from "./session-cookie.js";
import { statusOf } from "./status.js";

/** Longest session: 400 days, the most a browser keeps a cookie (as core's sessions.signIn allows). */
const maxSessionSeconds = 400 * 24 * 60 * 60;

/** Largest sign-in body read, in bytes (a password is at most 1024 characters). */
export const maxSignInBodyBytes = 8 * 1024;

/** Serves one of the sign-in paths, or answers null for any other path. */
export type SessionPages = (request: Request, path: string, prefix: string) => Promise<Response | null>;

/**
 * The owner's sign-in pages, under the site prefix: `GET /signin` (a form), `POST /signin`
 * (a form-urlencoded or JSON `password`, and an optional same-site `next` path) and
 * `POST /signout`. A browser (Accept: text/html) gets pages and 303 redirects; other clients get
 * JSON in the spec's shapes. Sign-in attempts are rate-limited per client before the password is
 * checked; both POSTs must come from the site itself (`Origin` / `Sec-Fetch-Site`), like every
 * cookie-authenticated write. @see docs/authentication.md
 */
export function createSessionPages(
  engine: Engine,
  options: HandlerOptions,
  limits: RateLimits,
): SessionPages | null {
  const found = sessionCookies(options);
  if (!found) return null;
  const cookies = found;
  const maxAgeSeconds = options.sessions?.maxAgeSeconds;
  if (
    maxAgeSeconds !== undefined &&
    !(Number.isInteger(maxAgeSeconds) && maxAgeSeconds >= 60 && maxAgeSeconds <= maxSessionSeconds)
  ) {
    throw new Error(`sessions.maxAgeSeconds must be a whole number from 60 to ${maxSessionSeconds}`);
  }

  async function signIn(request: Request, prefix: string): Promise<Response> {
    const html = wantsHtml(request);
    let next = `${prefix}/`;
    try {
      if (!isSameSiteRequest(request, options)) {
        throw new EngineError("FORBIDDEN", "Cross-site sign-in refused: send the form from this site");
      }
      await limits.check("signIn", request);
      const fields = await readSignInBody(request, options);
      next = safeNext(fields.next, prefix);
      const session = await engine.sessions.signIn(
        { password: fields.password as string, ...(maxAgeSeconds ? { maxAgeSeconds } : {}) },
        internalCaller,
      );
      const cookiePath = prefix === "" ? "/" : prefix;
      const maxAge = session.expiresAt - engine.context.clock.now();
      const setCookie = cookies.header(await cookies.sign(session.token), maxAge, request, cookiePath);
      const response = html
        ? new Response(null, { status: 303, headers: { location: next } })
        : json({ success: true, expiresAt: session.expiresAt });
      response.headers.set("set-cookie", setCookie);
      response.headers.set("cache-control", "no-store");
      return response;
    } catch (err) {
      if (!isEngineError(err)) throw err;
      const response = html ? signInPage(prefix, next, err) : errorResponse(err);
      setRetryAfter(response, err);
      response.headers.set("cache-control", "no-store");
      return response;
    }
  }

  async function signOut(request: Request, prefix: string): Promise<Response> {
    if (!isSameSiteRequest(request, options)) {
      return errorResponse(new EngineError("FORBIDDEN", "Cross-site sign-out refused"));
    }
    for (const secret of await cookies.tokens(request)) {
      await engine.sessions.signOut({ token: secret }, internalCaller);
    }
    const cookiePath = prefix === "" ? "/" : prefix;
    const response = wantsHtml(request)
      ? new Response(null, { status: 303, headers: { location: `${prefix}/signin` } })
      : json({ success: true });
    response.headers.set("set-cookie", cookies.header(null, 0, request, cookiePath));
    response.headers.set("cache-control", "no-store");
    return response;
  }

  return async (request, path, prefix) => {
    if (path === "/signin") {
      if (request.method === "GET" || request.method === "HEAD") {
        const next = safeNext(new URL(request.url).searchParams.get("next"), prefix);
        return signInPage(prefix, next, null);
      }
      if (request.method === "POST") return signIn(request, prefix);
      return notAllowed(["GET", "HEAD", "POST"]);
    }
    if (path === "/signout") {
      if (request.method === "POST") return signOut(request, prefix);
      return notAllowed(["POST"]);
    }
    return null;
  };
}

/** The sign-in form's fields, from a form-urlencoded or JSON body of at most 8 KiB. */
async function readSignInBody(request: Request, options: HandlerOptions): Promise<Record<string, unknown>> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const isJson = type === "application/json";
  if (!isJson && type !== "application/x-www-form-urlencoded" && type !== "") {
    throw new EngineError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Send the sign-in form as application/x-www-form-urlencoded or application/json (got ${type})`,
    );
  }
  const text = await readText(
    request,
    maxSignInBodyBytes,
    requestBody(request, options.requestBody?.(request)),
  );
  if (isJson) {
    let body: unknown;
    try {
      body = text.trim() === "" ? {} : JSON.parse(text);
    } catch {
      throw new EngineError("VALIDATION_ERROR", "The request body is not valid JSON");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new EngineError("VALIDATION_ERROR", "The request body must be a JSON object");
    }
    return body as Record<string, unknown>;
  }
  const form = new URLSearchParams(text);
  return { password: form.get("password") ?? undefined, next: form.get("next") ?? undefined };
}

/** Where to go after signing in: a path on this site (never another host), else the site's root. */
export function safeNext(next: unknown, prefix: string): string {
  const fallback = `${prefix}/`;
  if (typeof next !== "string" || next.length > 2000) return fallback;
  if (!next.startsWith("/") || next.startsWith("//") || /[\\\s]/.test(next) || hasControlCharacter(next))
    return fallback;
  // As a Location header must carry it: a header is bytes (one above U+00FF cannot even be set), so
  // the URL parser writes other characters as UTF-8 escapes, keeps escapes already there, and
  // resolves `.` and `..` segments before the prefix is checked.
  let url: URL;
  try {
    url = new URL(next, "http://site.invalid");
  } catch {
    return fallback;
  }
  if (url.origin !== "http://site.invalid") return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (prefix !== "" && path !== prefix && !path.startsWith(`${prefix}/`)) return fallback;
  return path;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++)
    if (text.charCodeAt(i) < 0x20 || text.charCodeAt(i) === 0x7f) return true;
  return false;
}

function wantsHtml(request: Request): boolean {
  return (request.headers.get("accept") ?? "").toLowerCase().includes("text/html");
}

function notAllowed(allowed: string[]): Response {
  const response = errorResponse(
    new EngineError("METHOD_NOT_ALLOWED", `This path answers ${allowed.join(", ")} only`),
  );
  response.headers.set("allow", allowed.join(", "));
  return response;
}

/** The sign-in form, with the error of a failed attempt when there is one. */
function signInPage(prefix: string, next: string, error: EngineError | null): Response {
  const message = error ? toErrorBody(error).error : null;
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Sign in</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:22rem;margin:4rem auto;padding:0 1rem;color:#222}
label,input,button{display:block;width:100%;box-sizing:border-box}
input{margin:.25rem 0 1rem;padding:.5rem;font:inherit}
button{padding:.5rem;font:inherit;cursor:pointer}
p[role=alert]{color:#a40000}
</style>
</head>
<body>
<main>
<h1>Sign in</h1>
${message ? `<p role="alert">${escapeHtml(message)}</p>\n` : ""}<form method="post" action="${escapeHtml(`${prefix}/signin`)}">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus maxlength="1024">
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
  return new Response(body, {
    status: error ? statusOf[error.code] : 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy":
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      "x-frame-options": "DENY",
      "referrer-policy": "same-origin",
    },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
