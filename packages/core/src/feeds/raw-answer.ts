/**
 * An operation's answer that is a document, not a JSON value: a feed, the sitemap, robots.txt.
 * Adapters send `body` as is with `contentType`, and answer conditional requests from `etag` and
 * `lastModified` (docs/feeds.md § Caching). In-process callers (a static-site build) write `body`
 * to a file.
 */
export interface RawAnswer {
  /** Marks the answer as a document for adapters (a JSON answer never has it). */
  readonly raw: true;
  /** The media type with its charset, e.g. `application/atom+xml; charset=utf-8`. */
  contentType: string;
  /** The document. */
  body: string;
  /** A strong validator of `body`: equal bodies have equal ETags. Quoted, as HTTP sends it. */
  etag: string;
  /** When what the document lists last changed, in Unix seconds (0 when it lists nothing). */
  lastModified: number;
}

/** True for an operation's answer that is a {@link RawAnswer}. */
export function isRawAnswer(value: unknown): value is RawAnswer {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { raw?: unknown }).raw === true &&
    typeof (value as { body?: unknown }).body === "string" &&
    typeof (value as { contentType?: unknown }).contentType === "string"
  );
}

/**
 * A document as a {@link RawAnswer}. The ETag is a SHA-256 of the body, so it changes exactly when
 * the bytes do: a new or edited entry, a renamed site, a changed limit or origin.
 */
export async function rawAnswer(contentType: string, body: string, lastModified: number): Promise<RawAnswer> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
  let hex = "";
  for (const byte of digest.subarray(0, 16)) hex += byte.toString(16).padStart(2, "0");
  return { raw: true, contentType, body, etag: `"${hex}"`, lastModified };
}
