import { type ByteSource, chunksOf, StorageLimitError } from "@quire/core";

/** One buffered slice of a streamed body; `last` is true for the final one. */
export interface BufferedPart {
  bytes: Uint8Array;
  last: boolean;
}

/**
 * Cuts a body into parts of exactly `partSize` bytes (the last one may be shorter), holding one
 * part in memory at a time, and throws StorageLimitError as soon as more than `maxBytes` arrive. A
 * full part is only handed out once more bytes follow, so the caller knows which part is last.
 */
export async function* partsOf(
  body: ByteSource,
  partSize: number,
  maxBytes: number | undefined,
): AsyncGenerator<BufferedPart, void, undefined> {
  let buffer = new Uint8Array(partSize);
  let filled = 0;
  let total = 0;
  for await (const chunk of chunksOf(body)) {
    total += chunk.byteLength;
    if (maxBytes !== undefined && total > maxBytes) throw new StorageLimitError(maxBytes);
    let offset = 0;
    while (offset < chunk.byteLength) {
      if (filled === partSize) {
        yield { bytes: buffer, last: false };
        buffer = new Uint8Array(partSize);
        filled = 0;
      }
      const length = Math.min(partSize - filled, chunk.byteLength - offset);
      buffer.set(chunk.subarray(offset, offset + length), filled);
      filled += length;
      offset += length;
    }
  }
  yield { bytes: buffer.subarray(0, filled), last: true };
}
