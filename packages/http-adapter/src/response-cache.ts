import { type Access, entityTag, isRawAnswer, type RawAnswer, variesWithTime } from "@quire/core";

/** The response cache's option: a memory bound, or `false` to turn it off. @see docs/caching.md */
export type ResponseCacheOption = { maxBytes?: number | undefined } | false;

/** The default memory bound of the response cache: 32 MiB. */
export const defaultResponseCacheBytes = 32 * 1024 * 1024;

/**
 * A public answer as bytes with what its HTTP response is built from: a JSON answer's serialised
 * body, or a document's (feeds, sitemap, robots.txt).
 */
export interface StoredAnswer {
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  /** A strong validator of `body` (SHA-256, see `entityTag`), quoted. */
  etag: string;
  /** A document's Last-Modified in Unix seconds; 0 when none. */
  lastModified: number;
  cacheControl: string;
}

/** What a browser or a shared cache may do with a public JSON answer: keep it, but ask first. */
const jsonCacheControl = "public, no-cache";
/** Documents keep the short lifetime feeds readers expect (docs/feeds.md § Caching). */
const documentCacheControl = "public, max-age=300";
/** Bytes counted for an entry besides its body and key (the objects around them). */
const entryOverhead = 256;

/**
 * Public answers as bytes, by site version and request: the cache behind `responseCache`, and the
 * ETag / `If-None-Match` handling of every public answer, with the cache on or off.
 *
 * An entry is keyed by the site content version the request read before computing it (so it is
 * never older than its version) and by the request's method-independent facets: the full path
 * with the site prefix and the query string as sent, and the origin when the handler has no
 * `siteOrigin` (answers then write links under the request's own origin). Public answers depend on
 * nothing else of a request: no caller (public routes answer the anonymous reader only), no
 * cookie, no `Accept-Language`. When a request reads a newer version than the entries', they are
 * all dropped (none can be served again); the bytes kept are bounded by `maxBytes`, least recently
 * used first out.
 */
export class ResponseCache {
  private readonly entries = new Map<string, StoredAnswer & { size: number }>();
  private bytes = 0;
  private version: string | undefined;
  readonly maxBytes: number;
  readonly enabled: boolean;

  constructor(option: ResponseCacheOption | undefined) {
    this.enabled = option !== false;
    this.maxBytes = option === false ? 0 : (option?.maxBytes ?? defaultResponseCacheBytes);
  }

  /** Entries kept and their bytes, for tests and metrics. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** The cache key of a request to a public route, or undefined when its answer is not kept. */
  keyOf(request: Request, url: URL, access: Access, siteOrigin: string | undefined): string | undefined {
    if (!this.enabled || access !== "public") return undefined;
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    return siteOrigin === undefined
      ? `${url.origin}${url.pathname}${url.search}`
      : `${url.pathname}${url.search}`;
  }

  /** The answer kept for `key` at `version`, as a response to `request` (304 when it matches). */
  lookup(request: Request, version: string, key: string): Response | undefined {
    if (!this.atVersion(version)) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Most recently used last: re-insert.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return answerResponse(request, entry, "hit");
  }

  /**
   * The response of a public operation's answer (a JSON value or a document) with its ETag, 304
   * when `If-None-Match` names it; kept under `key` at `version` when a key is given and the answer
   * does not change with time alone.
   */
  async respond(
    request: Request,
    result: unknown,
    version: string,
    key: string | undefined,
  ): Promise<Response> {
    const stored = await storedAnswer(result);
    if (key !== undefined && !(isRawAnswer(result) && result.variesWithTime) && !variesWithTime(result)) {
      this.store(version, key, stored);
      return answerResponse(request, stored, "miss");
    }
    return answerResponse(request, stored, undefined);
  }

  private store(version: string, key: string, answer: StoredAnswer): void {
    if (!this.atVersion(version)) return;
    const size = answer.body.byteLength + key.length * 2 + entryOverhead;
    if (size > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.size;
    }
    this.entries.set(key, { ...answer, size });
    this.bytes += size;
    for (const [oldKey, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldKey);
      this.bytes -= entry.size;
    }
  }

  /**
   * True when `version` is the one the entries are kept at. A newer version drops them all (no
   * request will ask for an older one again); an older one (a read that began before another
   * request's newer one) neither reads nor writes the cache.
   */
  private atVersion(version: string): boolean {
    if (version === this.version) return true;
    if (this.version !== undefined && !isNewerVersion(version, this.version)) return false;
    this.version = version;
    this.entries.clear();
    this.bytes = 0;
    return true;
  }
}

/** True when site version `a` is later than `b` (decimal counters; `none` before migration 011). */
function isNewerVersion(a: string, b: string): boolean {
  if (a === "none" || b === "none") return a !== b;
  return a.length !== b.length ? a.length > b.length : a > b;
}

const encoder = new TextEncoder();

/** A public answer as bytes with its ETag. */
async function storedAnswer(result: unknown): Promise<StoredAnswer> {
  if (isRawAnswer(result)) return documentAnswer(result);
  const body = encoder.encode(JSON.stringify(result));
  return {
    body,
    contentType: "application/json; charset=utf-8",
    etag: await entityTag(body),
    lastModified: 0,
    cacheControl: jsonCacheControl,
  };
}

function documentAnswer(answer: RawAnswer): StoredAnswer {
  return {
    body: encoder.encode(answer.body),
    contentType: answer.contentType,
    etag: answer.etag,
    lastModified: answer.lastModified,
    cacheControl: documentCacheControl,
  };
}

/**
 * A public answer as an HTTP response: the body with its type, `ETag`, `Cache-Control` and (for a
 * document that has one) `Last-Modified`. A request whose `If-None-Match` names the ETag, or
 * (without `If-None-Match`) whose `If-Modified-Since` is not older than `Last-Modified`, gets 304
 * with no body (RFC 9110 § 13.1). `cache`, when given, is sent as `Quire-Cache: hit|miss`.
 */
export function answerResponse(
  request: Request,
  answer: StoredAnswer,
  cache: "hit" | "miss" | undefined,
): Response {
  // A plain record, not a `Headers`: a Node server bridge (@hono/node-server) writes it as it
  // is, where a `Headers` object is built and read back on every cache hit.
  const headers: Record<string, string> = {
    "content-type": answer.contentType,
    etag: answer.etag,
    "cache-control": answer.cacheControl,
    "x-content-type-options": "nosniff",
  };
  if (answer.lastModified > 0) headers["last-modified"] = new Date(answer.lastModified * 1000).toUTCString();
  if (cache) headers["quire-cache"] = cache;
  if (notModified(request, answer)) {
    delete headers["content-type"];
    return new Response(null, { status: 304, headers });
  }
  if (request.method !== "HEAD") return new Response(answer.body, { status: 200, headers });
  // A HEAD answer has no content to measure; the bytes a GET would send are known (RFC 9110 § 8.6).
  headers["content-length"] = String(answer.body.byteLength);
  return new Response(null, { status: 200, headers });
}

/** A document answer (a feed, the sitemap, robots.txt) as a response, outside any cache. */
export function rawResponse(request: Request, answer: RawAnswer): Response {
  return answerResponse(request, documentAnswer(answer), undefined);
}

function notModified(request: Request, answer: StoredAnswer): boolean {
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch !== null) {
    if (ifNoneMatch.trim() === "*") return true;
    // Weak comparison: a cache may send back the tag marked weak (W/"…").
    return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === answer.etag);
  }
  const ifModifiedSince = request.headers.get("if-modified-since");
  if (ifModifiedSince === null || answer.lastModified === 0) return false;
  const since = Date.parse(ifModifiedSince);
  if (Number.isNaN(since)) return false;
  return answer.lastModified * 1000 <= since;
}
