import { validationError } from "../errors.js";
import { type ByteSource, chunksOf } from "../storage.js";

/** What a {@link meterStream} saw pass through. */
export interface StreamMeter {
  /** Bytes passed on so far. */
  bytes: number;
  /** True once the source went past `maxBytes` (the stream then errored and the source was cancelled). */
  exceeded: boolean;
  /** The error the source itself failed with (a client that went away, a malformed multipart body). */
  sourceError: unknown;
  /** True when the source failed. */
  sourceFailed: boolean;
  /** True once the source ended normally. */
  ended: boolean;
}

/** Thrown into a metered stream when its source passes the limit. */
export class MeterLimitError extends Error {
  constructor(readonly maxBytes: number) {
    super(`more than ${maxBytes} bytes`);
    this.name = "MeterLimitError";
  }
}

/**
 * Passes a body through as it is read (the consumer's pace sets the reading pace), counting
 * bytes, cutting the source off past `maxBytes`, and showing each chunk to `onChunk` (e.g. a hash).
 * Chunks pass as they came, neither copied nor held: a store batches its own writes. The meter
 * tells afterwards why a write failed: too many bytes, the source's own error, or neither (the
 * consumer's fault). A consumer that stops early ends the source (cancels the stream).
 */
export function meterStream(
  source: ByteSource,
  options: {
    maxBytes?: number | undefined;
    onChunk?: ((chunk: Uint8Array) => void) | undefined;
  } = {},
): { stream: AsyncIterable<Uint8Array>; meter: StreamMeter } {
  const meter: StreamMeter = {
    bytes: 0,
    exceeded: false,
    sourceError: undefined,
    sourceFailed: false,
    ended: false,
  };
  async function* metered(): AsyncGenerator<Uint8Array, void, undefined> {
    const chunks = chunksOf(source);
    try {
      for (;;) {
        let result: IteratorResult<Uint8Array, void>;
        try {
          result = await chunks.next();
          if (!result.done && !(result.value instanceof Uint8Array)) {
            throw validationError("The file's bytes must come as Uint8Array chunks (not text)");
          }
        } catch (err) {
          meter.sourceFailed = true;
          meter.sourceError = err;
          throw err;
        }
        if (result.done) {
          meter.ended = true;
          return;
        }
        const chunk = result.value;
        meter.bytes += chunk.byteLength;
        if (options.maxBytes !== undefined && meter.bytes > options.maxBytes) {
          meter.exceeded = true;
          throw new MeterLimitError(options.maxBytes);
        }
        options.onChunk?.(chunk);
        yield chunk;
      }
    } finally {
      // Ends the source when the consumer stopped early or the limit cut it off.
      if (!meter.ended && !meter.sourceFailed) await chunks.return().catch(() => {});
    }
  }
  return { stream: metered(), meter };
}
