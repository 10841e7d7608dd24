import type { StreamedFile } from "@quire/core";

/**
 * An operation's streamed file (a ZIP export) as an HTTP response: the body is sent as it is made,
 * chunked, never buffered; a download named by the answer, and never cached.
 */
export function streamedResponse(answer: StreamedFile): Response {
  const filename = answer.filename.replace(/[^A-Za-z0-9._-]/g, "_");
  return new Response(answer.body, {
    status: 200,
    headers: {
      "content-type": answer.contentType,
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}
