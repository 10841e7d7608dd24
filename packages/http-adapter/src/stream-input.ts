import type { ByteSource } from "@quire/core";

/**
 * The raw body of a request as an operation reads it: a stream (never buffered), its declared
 * `Content-Length` and `Content-Type`. The bytes come from `rawBody` when the server supplied it,
 * else from `request.body`. Core never sees the Request itself.
 */
export function streamInput(
  request: Request,
  rawBody?: AsyncIterable<Uint8Array>,
): {
  body: ByteSource | undefined;
  contentLength: number | undefined;
  contentType: string | undefined;
} {
  const length = request.headers.get("content-length");
  return {
    body: rawBody ?? request.body ?? undefined,
    contentLength: length !== null && /^\d{1,15}$/.test(length.trim()) ? Number(length) : undefined,
    contentType: request.headers.get("content-type") ?? undefined,
  };
}
