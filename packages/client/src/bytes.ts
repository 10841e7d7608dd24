import type { ClientBytes } from "./types.js";

/** A request body for fetch from a file's bytes, and whether fetch must stream it (`duplex: "half"`). */
export function requestBody(bytes: ClientBytes): { body: BodyInit; streamed: boolean } {
  if (bytes instanceof Blob) return { body: bytes, streamed: false };
  if (bytes instanceof Uint8Array) return { body: bytes as Uint8Array<ArrayBuffer>, streamed: false };
  if (bytes instanceof ArrayBuffer) return { body: bytes, streamed: false };
  if (bytes instanceof ReadableStream) return { body: bytes, streamed: true };
  if (isAsyncIterable(bytes)) return { body: streamOf(bytes), streamed: true };
  throw new TypeError(
    "Expected a Blob, ReadableStream, AsyncIterable<Uint8Array>, Uint8Array or ArrayBuffer",
  );
}

/** True for a value the client sends as a file's bytes. */
export function isClientBytes(value: unknown): value is ClientBytes {
  return (
    value instanceof Blob ||
    value instanceof Uint8Array ||
    value instanceof ArrayBuffer ||
    value instanceof ReadableStream ||
    isAsyncIterable(value)
  );
}

/** The size of bytes in hand (a Blob, bytes); undefined for a stream. */
export function knownSize(bytes: ClientBytes): number | undefined {
  if (bytes instanceof Blob) return bytes.size;
  if (bytes instanceof Uint8Array || bytes instanceof ArrayBuffer) return bytes.byteLength;
  return undefined;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/** A Web stream pulling from an async iterable (ReadableStream.from is missing in some browsers). */
export function streamOf(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  let iterator: AsyncIterator<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      iterator ??= chunks[Symbol.asyncIterator]();
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel(reason) {
      await iterator?.return?.(reason);
    },
  });
}

/** The chunks of any byte source, one at a time. */
async function* chunksOf(bytes: ClientBytes): AsyncGenerator<Uint8Array> {
  if (bytes instanceof Uint8Array) {
    yield bytes;
  } else if (bytes instanceof ArrayBuffer) {
    yield new Uint8Array(bytes);
  } else {
    const stream = bytes instanceof Blob ? bytes.stream() : bytes;
    if (stream instanceof ReadableStream) {
      const reader = stream.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          yield value;
        }
      } finally {
        reader.releaseLock();
      }
    } else {
      yield* stream;
    }
  }
}

/**
 * Cuts a byte source into consecutive pieces without holding more than one chunk: `take(n)` is a
 * stream of the next `n` bytes (fewer at the end of the source). Blobs and bytes are sliced instead.
 */
export class PieceReader {
  private readonly source: ClientBytes;
  private chunks: AsyncGenerator<Uint8Array> | undefined;
  private leftover: Uint8Array | undefined;
  private offset = 0;

  constructor(source: ClientBytes) {
    this.source = source;
  }

  take(size: number): ClientBytes {
    const start = this.offset;
    this.offset += size;
    const source = this.source;
    if (source instanceof Blob) return source.slice(start, start + size);
    if (source instanceof Uint8Array) return source.subarray(start, start + size);
    if (source instanceof ArrayBuffer)
      return new Uint8Array(source, start, Math.min(size, source.byteLength - start));
    return streamOf(this.piece(size));
  }

  private async *piece(size: number): AsyncGenerator<Uint8Array> {
    this.chunks ??= chunksOf(this.source);
    let remaining = size;
    while (remaining > 0) {
      let chunk = this.leftover;
      this.leftover = undefined;
      if (!chunk) {
        const next = await this.chunks.next();
        if (next.done) return;
        chunk = next.value;
      }
      if (chunk.byteLength > remaining) {
        this.leftover = chunk.subarray(remaining);
        chunk = chunk.subarray(0, remaining);
      }
      remaining -= chunk.byteLength;
      if (chunk.byteLength > 0) yield chunk;
    }
  }
}

const encoder = new TextEncoder();

/** One part of a `multipart/form-data` body: a text field or a file. */
export type FormPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; body: ClientBytes };

/**
 * A `multipart/form-data` body streamed part by part: a Blob when every file is in hand (so fetch
 * knows its length), else a stream read from the files as it is sent.
 */
export function multipartBody(parts: FormPart[]): { body: BodyInit; contentType: string; streamed: boolean } {
  const boundary = `----QuireFormBoundary${randomHex()}`;
  const pieces: (string | ClientBytes)[] = [];
  for (const part of parts) {
    if ("value" in part) {
      pieces.push(
        `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(part.name)}"\r\n\r\n${part.value}\r\n`,
      );
    } else {
      pieces.push(
        `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(part.name)}"; filename="${escapeName(part.filename)}"\r\nContent-Type: ${part.contentType}\r\n\r\n`,
        part.body,
        "\r\n",
      );
    }
  }
  pieces.push(`--${boundary}--\r\n`);
  const contentType = `multipart/form-data; boundary=${boundary}`;
  const inHand = pieces.every(
    (piece) =>
      typeof piece === "string" ||
      piece instanceof Blob ||
      piece instanceof Uint8Array ||
      piece instanceof ArrayBuffer,
  );
  if (inHand) {
    return { body: new Blob(pieces as BlobPart[]), contentType, streamed: false };
  }
  async function* generate(): AsyncGenerator<Uint8Array> {
    for (const piece of pieces) {
      if (typeof piece === "string") yield encoder.encode(piece);
      else yield* chunksOf(piece);
    }
  }
  return { body: streamOf(generate()), contentType, streamed: true };
}

/** A field name or filename in a quoted header parameter, escaped as browsers do (HTML form submission). */
function escapeName(name: string): string {
  return name.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22");
}

function randomHex(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
