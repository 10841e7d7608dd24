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
  return source ? readOrRefuse(source) : undefined;
}

async function* readOrRefuse(
  source: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
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
