import * as z from "zod";
import { type ByteSource, isByteSource } from "../storage.js";

const byteSchemas = new WeakSet<z.core.$ZodType>();

/**
 * A file's bytes: a Web stream, an async iterable of chunks or a `Uint8Array` (in-process and over
 * HTTP, streamed, never buffered), or base64 text (how JSON carries bytes, e.g. an MCP tool call).
 * As JSON Schema it is a base64 string (see {@link inputJsonSchema}).
 */
export const bytesParam = z
  .custom<ByteSource | string>(
    (value) => isByteSource(value) || (typeof value === "string" && isBase64(value)),
    "Expected the file's bytes (or base64 text)",
  )
  .transform((value): ByteSource => (typeof value === "string" ? decodeBase64(value) : value));

byteSchemas.add(bytesParam.in);

/**
 * The JSON Schema of an operation input as a client sends it (`io: "input"`): plain JSON types, a
 * byte field as a base64 string. Anything else zod cannot represent throws, so a schema that would
 * leave MCP tools or the OpenAPI document guessing fails its test.
 */
export function inputJsonSchema(schema: z.ZodType): z.core.JSONSchema.BaseSchema {
  return z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: ({ zodSchema }) =>
      byteSchemas.has(zodSchema) ? { type: "string", contentEncoding: "base64" } : "throw",
  });
}

/** The base64 alphabet (RFC 4648 § 4), by character code. */
const alphabet = new Uint8Array(128);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
  alphabet[char.charCodeAt(0)] = 1;

/**
 * True for padded base64: groups of four alphabet characters, the last ending in `=` or `==`.
 * A loop, not a regular expression: `^(?:[A-Za-z0-9+/]{4})*…$` made V8's backtracking stack
 * overflow on a file of a few megabytes ("Maximum call stack size exceeded", an internal error
 * for an MCP upload of 12 MB).
 */
function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  for (let i = 0; i < text.length - padding; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || alphabet[code] === 0) return false;
  }
  return true;
}

/**
 * Node's `Buffer` where there is one, read from the global: importing `node:buffer` would keep
 * core's main entry from bundling for a Worker or an edge runtime (exports.test.ts).
 */
const nodeBuffer = (globalThis as { Buffer?: { from(text: string, encoding: "base64"): Uint8Array } }).Buffer;

/** Decodes text {@link isBase64} accepted: Node's native decoder, else the Web's `atob`. */
function decodeBase64(text: string): Uint8Array {
  if (nodeBuffer) {
    const decoded = nodeBuffer.from(text, "base64");
    return new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength);
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
