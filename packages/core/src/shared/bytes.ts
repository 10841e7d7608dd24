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

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isBase64(text: string): boolean {
  return base64Pattern.test(text);
}

function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
