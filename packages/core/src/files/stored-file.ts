import type { EngineContext } from "../deps.js";
import { type EngineError, invalidField, isEngineError, validationError } from "../errors.js";
import { type ByteSource, type Storage, StorageLimitError } from "../storage.js";
import { servingOf } from "./file-types.js";
import { meterStream, type StreamMeter } from "./metered-stream.js";
import { createSha256 } from "./sha256.js";
import { deleteStoredKeys, requireStorage, storageFailure } from "./stored-objects.js";

/** What {@link storeBody} is to write and check. */
export interface StoreBodyInput {
  key: string;
  body: ByteSource;
  contentType: string;
  /** More bytes than this cut the body off; nothing is left behind. */
  maxBytes: number;
  /** The request field a limit or size error names. */
  field: string;
  /** When set, any other byte count is a 400 and the object is deleted. */
  exactSize?: number | undefined;
  /** When set (padded base64), any other SHA-256 is a 400 and the object is deleted. */
  checksum?: string | null | undefined;
}

/**
 * Streams a client's body into storage, hashing on the way when a checksum is to be checked. Past
 * `maxBytes` the body is cut off (400, and the store keeps nothing); a byte count or checksum that
 * does not match is a 400 with the object deleted. A failing store is EXTERNAL_SERVICE_ERROR.
 */
export async function storeBody(ctx: EngineContext, input: StoreBodyInput): Promise<{ size: number }> {
  const storage = requireStorage(ctx);
  const hash = input.checksum ? await createSha256() : undefined;
  const { stream, meter } = meterStream(input.body, {
    maxBytes: input.maxBytes,
    onChunk: hash && ((chunk) => hash.update(chunk)),
  });
  try {
    await storage.put(input.key, stream, {
      contentType: input.contentType,
      contentDisposition: servingOf(input.key).contentDisposition,
      maxBytes: input.maxBytes,
    });
  } catch (err) {
    throw writeFailure(ctx, err, meter, input);
  }
  let problem: EngineError | undefined;
  if (input.exactSize !== undefined && meter.bytes !== input.exactSize) {
    problem = invalidField(input.field, `Received ${meter.bytes} bytes, not the ${input.exactSize} declared`);
  } else if (hash && hash.digest() !== input.checksum) {
    problem = invalidField("checksumSha256", "The file does not match its declared SHA-256");
  }
  if (problem) {
    await deleteStoredKeys(ctx, [input.key]);
    throw problem;
  }
  return { size: meter.bytes };
}

/** Why a streamed write failed, as the error the client gets. */
export function writeFailure(
  ctx: EngineContext,
  err: unknown,
  meter: StreamMeter,
  input: { maxBytes: number; field: string },
): EngineError {
  if (meter.exceeded || err instanceof StorageLimitError) {
    return invalidField(input.field, `The file is larger than ${input.maxBytes} bytes`);
  }
  if (meter.sourceFailed) {
    return isEngineError(meter.sourceError)
      ? meter.sourceError
      : validationError("The request body ended before the file did");
  }
  if (isEngineError(err)) return err;
  return storageFailure(ctx, err);
}

/**
 * Up to `length` leading bytes of a stored object (fewer when it is shorter); null when it is
 * missing. Stops reading once it has enough, even from a store that ignored the range.
 */
export async function readLeadingBytes(
  storage: Storage,
  key: string,
  length: number,
): Promise<Uint8Array | null> {
  let read: Awaited<ReturnType<Storage["get"]>>;
  try {
    read = await storage.get(key, { start: 0, end: length - 1 });
  } catch (err) {
    // A range on an empty object starts past its end.
    if (err instanceof RangeError) return (await storage.head(key)) ? new Uint8Array(0) : null;
    throw err;
  }
  if (!read) return null;
  const out = new Uint8Array(length);
  let filled = 0;
  const reader = read.body.getReader();
  while (filled < length) {
    const { done, value } = await reader.read();
    if (done) break;
    const take = value.subarray(0, length - filled);
    out.set(take, filled);
    filled += take.byteLength;
  }
  await reader.cancel().catch(() => {});
  return out.subarray(0, filled);
}

/** The base64 SHA-256 of a stored object, read back as a stream. */
export async function hashStoredObject(storage: Storage, key: string): Promise<string | null> {
  const read = await storage.get(key);
  if (!read) return null;
  const hash = await createSha256();
  const reader = read.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hash.update(value);
  }
  return hash.digest();
}
