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
  /**
   * True when the document may change with time alone, without a write (a feed that leaves out
   * Threads published less than `RSS_PUBLISH_DELAY_SECONDS` ago): a cache keyed by the site
   * version must not keep it. @see docs/caching.md
   */
  variesWithTime?: true;
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
 * A strong validator of `body`: the first 128 bits of its SHA-256 in hex, quoted as HTTP sends it.
 * Equal bytes have equal tags. Documents (feeds) and the HTTP adapter's JSON answers share it.
 */
export async function entityTag(body: string | Uint8Array): Promise<string> {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  let hex = "";
  for (const byte of digest.subarray(0, 16)) hex += byte.toString(16).padStart(2, "0");
  return `"${hex}"`;
}

/**
 * A document as a {@link RawAnswer}. The ETag is a SHA-256 of the body, so it changes exactly when
 * the bytes do: a new or edited entry, a renamed site, a changed limit or origin. `variesWithTime`:
 * the document may change with the clock alone (a feed's publish delay).
 */
export async function rawAnswer(
  contentType: string,
  body: string,
  lastModified: number,
  options: { variesWithTime?: boolean } = {},
): Promise<RawAnswer> {
  const answer: RawAnswer = { raw: true, contentType, body, etag: await entityTag(body), lastModified };
  if (options.variesWithTime) answer.variesWithTime = true;
  return answer;
}
