import type { RawAnswer } from "@quire/core";

/**
 * An operation's document answer (a feed, the sitemap, robots.txt) as an HTTP response: the body
 * with its type, `ETag`, `Last-Modified` and a short public cache lifetime. A request whose
 * `If-None-Match` names the ETag, or (without `If-None-Match`) whose `If-Modified-Since` is not
 * older than `Last-Modified`, gets 304 with no body (RFC 9110 § 13.1). @see docs/feeds.md § Caching
 */
export function rawResponse(request: Request, answer: RawAnswer): Response {
  const headers = new Headers({
    "content-type": answer.contentType,
    etag: answer.etag,
    "cache-control": "public, max-age=300",
    "x-content-type-options": "nosniff",
  });
  if (answer.lastModified > 0)
    headers.set("last-modified", new Date(answer.lastModified * 1000).toUTCString());
  if (notModified(request, answer)) {
    headers.delete("content-type");
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === "HEAD" ? null : answer.body, { status: 200, headers });
}

function notModified(request: Request, answer: RawAnswer): boolean {
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
