import { chunksOf, EngineError } from "@quire/core";

/** The body as UTF-8 text, refusing (400) one larger than `limit` bytes before reading it all. */
export async function readText(
  request: Request,
  limit: number,
  rawBody: AsyncIterable<Uint8Array> | undefined,
): Promise<string> {
  const tooLarge = () =>
    new EngineError("VALIDATION_ERROR", `The request body is larger than ${limit} bytes`);
  if (Number(request.headers.get("content-length") ?? 0) > limit) throw tooLarge();
  const body = rawBody ?? request.body;
  if (!body) return "";
  const decoder = new TextDecoder();
  let text = "";
  let received = 0;
  // Leaving the loop early (too large) cancels the stream, or hands a raw body back to the server.
  for await (const chunk of chunksOf(body)) {
    received += chunk.byteLength;
    if (received > limit) throw tooLarge();
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}
