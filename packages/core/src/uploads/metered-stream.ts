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

/** Small chunks are joined up to this size, so a store writes (and syscalls) per half MiB, not per packet. */
const defaultChunkBytes = 512 * 1024;

/**
 * Passes a body through (pull-driven, so the consumer's pace sets the reading pace), counting
 * bytes, cutting the source off past `maxBytes`, and showing each chunk to `onChunk` (e.g. a hash).
 * Network-sized chunks are joined into pieces of about `chunkBytes`, which is all it holds in
 * memory. The meter tells afterwards why a write failed: too many bytes, the source's own error,
 * or neither (the consumer's fault).
 */
export function meterStream(
  source: ReadableStream<Uint8Array> | Uint8Array,
  options: {
    maxBytes?: number | undefined;
    onChunk?: ((chunk: Uint8Array) => void) | undefined;
    chunkBytes?: number | undefined;
  } = {},
): { stream: ReadableStream<Uint8Array>; meter: StreamMeter } {
  const meter: StreamMeter = {
    bytes: 0,
    exceeded: false,
    sourceError: undefined,
    sourceFailed: false,
    ended: false,
  };
  const chunkBytes = options.chunkBytes ?? defaultChunkBytes;
  const reader = (source instanceof Uint8Array ? streamOfBytes(source) : source).getReader();
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const parts: Uint8Array[] = [];
        let size = 0;
        while (size < chunkBytes) {
          let result: ReadableStreamReadResult<Uint8Array>;
          try {
            result = await reader.read();
          } catch (err) {
            meter.sourceFailed = true;
            meter.sourceError = err;
            controller.error(err);
            return;
          }
          if (result.done) {
            meter.ended = true;
            if (size > 0) controller.enqueue(join(parts, size));
            controller.close();
            return;
          }
          const chunk = result.value;
          meter.bytes += chunk.byteLength;
          if (options.maxBytes !== undefined && meter.bytes > options.maxBytes) {
            meter.exceeded = true;
            const error = new MeterLimitError(options.maxBytes);
            controller.error(error);
            await reader.cancel(error).catch(() => {});
            return;
          }
          options.onChunk?.(chunk);
          parts.push(chunk);
          size += chunk.byteLength;
        }
        controller.enqueue(join(parts, size));
      },
      async cancel(reason) {
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, meter };
}

function join(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

function streamOfBytes(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}
