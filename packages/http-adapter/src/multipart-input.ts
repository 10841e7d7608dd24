import type { ByteSource } from "@quire/core";
import { formDataBoundary, parseFormData } from "./multipart.js";

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

/** A `multipart/form-data` request as the ordered parts it carries, file bodies streaming. 400 for other types. */
export function formInput(
  request: Request,
  rawBody?: AsyncIterable<Uint8Array>,
): { form: ReturnType<typeof parseFormData> } {
  const boundary = formDataBoundary(request.headers.get("content-type"));
  return { form: parseFormData(rawBody ?? request.body ?? new Uint8Array(0), boundary) };
}
