import { EngineError } from "@quire/core";
import type * as z from "zod";
import { type FormDataPart, formDataBoundary, joinChunks, parseFormData } from "./multipart.js";
import { inputFromText } from "./text-input.js";

/** Largest file part read into memory when it cannot stream (one beside the main `file`). */
const maxBufferedFileBytes = 16 * 1024 * 1024;

/**
 * A streamed `multipart/form-data` body as an operation's input. Text fields become values through
 * the operation's schema (an empty field counts as absent). The `file` part is handed on as it
 * streams: `file` (its bytes), `filename` and `contentType`. Any other file part `x` the schema
 * names (a poster frame) is read into memory, up to 16 MiB, as `x` and `xContentType`; parts the
 * schema does not name are skipped.
 *
 * The fields and files that come after `file` can only be read once its bytes have been consumed:
 * `trailing()` reads them, converted the same way, and the operation asks for it when it is ready.
 * `close()` lets go of whatever is left (call it when the operation is done).
 */
export async function formInput(
  schema: z.ZodType,
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
  contentType: string | null,
): Promise<{
  input: Record<string, unknown>;
  trailing: () => Promise<Record<string, unknown>>;
  close: () => Promise<void>;
}> {
  const parts = parseFormData(body, formDataBoundary(contentType));
  const before = await readUntilFile(parts, schema);
  let trailingRead: Promise<Record<string, unknown>> | undefined;
  return {
    input: before,
    trailing: () => {
      trailingRead ??= readUntilFile(parts, schema).then((after) => {
        if ("file" in after) throw invalidField("file", "Send one file per upload");
        return after;
      });
      return trailingRead;
    },
    close: async () => {
      await parts.return(undefined);
    },
  };
}

/** Reads parts until the `file` part (which is left streaming) or the end of the form. */
async function readUntilFile(
  parts: AsyncGenerator<FormDataPart, void, undefined>,
  schema: z.ZodType,
): Promise<Record<string, unknown>> {
  const fields: [string, string][] = [];
  const files: Record<string, unknown> = {};
  for (;;) {
    const next = await parts.next();
    if (next.done) break;
    const part = next.value;
    if (!("body" in part)) {
      if (part.name === "file" || isFilePart(part.name, schema))
        throw invalidField(part.name, "Expected a file");
      if (part.value !== "" && !fields.some(([name]) => name === part.name))
        fields.push([part.name, part.value]);
    } else if (part.name === "file") {
      files.file = part.body;
      files.filename = part.filename;
      files.contentType = part.contentType;
      break;
    } else if (isFilePart(part.name, schema)) {
      if (part.name in files) throw invalidField(part.name, "Send one file per field");
      files[part.name] = await readWhole(part.body, part.name);
      files[`${part.name}ContentType`] = part.contentType;
    }
    // Other parts are skipped: the parser drops an unread file body when it moves on.
  }
  return { ...inputFromText(schema, fields), ...files };
}

function isFilePart(name: string, schema: z.ZodType): boolean {
  const shape = (schema as unknown as { _zod: { def: { shape?: Record<string, unknown> } } })._zod.def.shape;
  return name !== "file" && shape !== undefined && `${name}ContentType` in shape;
}

async function readWhole(body: AsyncIterable<Uint8Array>, field: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBufferedFileBytes) {
      throw invalidField(field, `A ${field} file may be at most ${maxBufferedFileBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return joinChunks(chunks, size);
}

function invalidField(field: string, message: string): EngineError {
  return new EngineError("VALIDATION_ERROR", `${field}: ${message}`, {
    formErrors: [],
    fieldErrors: { [field]: [message] },
  });
}
