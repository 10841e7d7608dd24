import { chunksOf, EngineError, isEngineError } from "@quire/core";

/**
 * A request's body as every route reads it: `rawBody` when the server supplied it, else
 * `request.body`; undefined when there is none. A read that fails midway (the client went away, or
 * stopped sending and the server cut it off) fails as a 400 `VALIDATION_ERROR`: the client caused
 * it, so it is no unexpected error for the operator's log, and the operation stores nothing (an
 * upload session stays open for the file to be sent again). Stopping early still hands the source
 * back as before (a raw body to the server, which drains it; a stream is cancelled).
 */
export function requestBody(
  request: Request,
  rawBody: AsyncIterable<Uint8Array> | undefined,
): AsyncIterable<Uint8Array> | undefined {
  // A Fetch GET or HEAD has no body; not asking spares a server's lazy Request from being built
  // whole (`@hono/node-server` makes one on the first read of `body`) on every cache miss.
  const source = rawBody ?? (request.method === "GET" || request.method === "HEAD" ? null : request.body);
  return source ? readOrRefuse(source, request.headers.get("content-encoding")) : undefined;
}

async function* readOrRefuse(
  source: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
  contentEncoding: string | null,
): AsyncGenerator<Uint8Array, void, undefined> {
  refuseContentCoding(contentEncoding);
  const chunks = chunksOf(source);
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array, void>;
      try {
        next = await chunks.next();
      } catch (err) {
        if (isEngineError(err)) throw err;
        throw new EngineError("VALIDATION_ERROR", "The request body stopped before all of it arrived");
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await chunks.return();
  }
}

/**
 * Bodies are read as sent: a body compressed by its client (`Content-Encoding: gzip`, say) would be
 * misread as JSON, or stored compressed as a file. RFC 9110 § 8.4 and RFC 7694 § 3: a server that
 * does not take a request's content coding answers 415 (with `Accept-Encoding: identity`, RFC 7694's
 * hint to send it plain). Checked on the first read, so routes that read no body never refuse the
 * header. @see docs/errors.md § Content types: 415
 */
function refuseContentCoding(header: string | null): void {
  if (header === null) return;
  const codings = header
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0) return;
  throw new ContentCodingRefused(codings);
}

/** The 415 of {@link refuseContentCoding}; `errorResponse` adds `Accept-Encoding: identity`. */
export class ContentCodingRefused extends EngineError {
  constructor(codings: string[]) {
    super(
      "UNSUPPORTED_MEDIA_TYPE",
      `This server reads request bodies uncompressed; send the body without Content-Encoding (got ${codings.join(", ").slice(0, 100)})`,
    );
  }
}
