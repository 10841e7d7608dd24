import { type ByteRange, type Storage, servingOf } from "@quire/core";
import type { FetchHandler } from "./handler.js";

/** Options for {@link createFileHandler}. */
export interface FileHandlerOptions {
  /**
   * The public path the files live under, e.g. `/media` or `/blog/media`: the storage's
   * `publicBaseUrl`, so `storage.url(key)` is `<prefix>/<key>`.
   */
  prefix: string;
}

/**
 * A Fetch handler serving stored objects at their public URL (`<prefix>/<key>`), for stores that
 * are not public by themselves (the local folder). GET and HEAD; the type comes from the key's
 * extension, with `nosniff`; images, video, audio and PDF open inline, anything else downloads.
 * Keys never change content, so answers are cacheable for a year (`immutable`) with an `ETag`
 * (`If-None-Match` → 304). One byte range per request (206; 416 when it starts past the end).
 */
export function createFileHandler(storage: Storage, options: FileHandlerOptions): FetchHandler {
  const base = `${options.prefix.replace(/\/+$/, "")}/`;
  return async (request) => {
    const key = keyOf(new URL(request.url).pathname, base);
    if (key === null) return plain(404, "Not found");
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed", { status: 405, headers: { allow: "GET, HEAD" } });
    }
    const object = await storage.head(key).catch(() => null);
    if (!object) return plain(404, "Not found");
    const headers = fileHeaders(key, object.etag ?? `"${object.size.toString(36)}"`);
    if (matchesEtag(request.headers.get("if-none-match"), headers.get("etag") as string)) {
      return new Response(null, { status: 304, headers: cacheHeaders(headers) });
    }
    const range = requestedRange(request, headers.get("etag") as string, object.size);
    if (range === "unsatisfiable") {
      headers.set("content-range", `bytes */${object.size}`);
      return new Response(null, { status: 416, headers });
    }
    const length = range ? range.end - range.start + 1 : object.size;
    headers.set("content-length", String(length));
    if (range) headers.set("content-range", `bytes ${range.start}-${range.end}/${object.size}`);
    const status = range ? 206 : 200;
    if (request.method === "HEAD") return new Response(null, { status, headers });
    const read = await storage.get(key, range ?? undefined);
    if (!read) return plain(404, "Not found");
    return new Response(read.body, { status, headers });
  };
}

function fileHeaders(key: string, etag: string): Headers {
  const { contentType, contentDisposition } = servingOf(key);
  const headers = new Headers({
    "content-type": contentType,
    "content-disposition": contentDisposition,
    "x-content-type-options": "nosniff",
    "cache-control": "public, max-age=31536000, immutable",
    "accept-ranges": "bytes",
    etag,
  });
  // A PDF viewer does not run in a sandbox; every other file is kept from acting as a page.
  if (!contentType.startsWith("application/pdf"))
    headers.set("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  return headers;
}

/** What a 304 repeats: the validators and caching headers, not the body's. */
function cacheHeaders(headers: Headers): Headers {
  const kept = new Headers();
  for (const name of ["etag", "cache-control", "content-disposition", "x-content-type-options"]) {
    const value = headers.get(name);
    if (value !== null) kept.set(name, value);
  }
  return kept;
}

/** The key below `base`, or null when the path cannot be one of the engine's keys. */
function keyOf(pathname: string, base: string): string | null {
  if (!pathname.startsWith(base)) return null;
  let segments: string[];
  try {
    segments = pathname.slice(base.length).split("/").map(decodeURIComponent);
  } catch {
    return null;
  }
  const valid = segments.every(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    (segment) => segment !== "" && !segment.startsWith(".") && !/[\\/\u0000-\u001f\u007f]/.test(segment),
  );
  return valid ? segments.join("/") : null;
}

function matchesEtag(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const weak = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => tag.trim() === "*" || weak(tag) === weak(etag));
}

/**
 * The one byte range asked for; null to send the whole file (no `Range`, a stale `If-Range`, a list
 * of ranges, or a header that cannot be read — all of which RFC 9110 lets a server ignore).
 */
function requestedRange(request: Request, etag: string, size: number): ByteRange | "unsatisfiable" | null {
  const header = request.headers.get("range");
  if (header === null) return null;
  const ifRange = request.headers.get("if-range");
  if (ifRange !== null && ifRange.trim() !== etag) return null;
  const match = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return null;
  const [first, last] = [match[1] as string, match[2] as string];
  if (first === "" && last === "") return null;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== "" && Number(last) < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
}

function plain(status: number, text: string): Response {
  return new Response(text, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
}
