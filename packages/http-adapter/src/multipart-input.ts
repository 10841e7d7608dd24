import { formDataBoundary, parseFormData } from "./multipart.js";

/**
 * The raw body of a request as an operation reads it: a Web stream (never buffered), its declared
 * `Content-Length` and `Content-Type`. Core never sees the Request itself.
 */
export function streamInput(request: Request): {
  body: ReadableStream<Uint8Array> | undefined;
  contentLength: number | undefined;
  contentType: string | undefined;
} {
  const length = request.headers.get("content-length");
  return {
    body: request.body ?? undefined,
    contentLength: length !== null && /^\d{1,15}$/.test(length.trim()) ? Number(length) : undefined,
    contentType: request.headers.get("content-type") ?? undefined,
  };
}

/** A `multipart/form-data` request as the ordered parts it carries, file bodies streaming. 400 for other types. */
export function formInput(request: Request): { form: ReturnType<typeof parseFormData> } {
  const boundary = formDataBoundary(request.headers.get("content-type"));
  const body = request.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  return { form: parseFormData(body, boundary) };
}
