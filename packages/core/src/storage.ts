/**
 * Where file bytes live. The engine calls it only with keys it generated itself (never a
 * user-supplied path). Adapters: `@quire/storage-fs` (a local folder), `@quire/storage-s3`
 * (any S3-compatible service). @see DESIGN § Storage
 */
export interface Storage {
  /** Stores a stream under `key`, replacing any previous object; resolves once it is durable. */
  put(key: string, body: ByteSource, options: PutOptions): Promise<StoredObject>;
  /** Reads an object, or a byte range of it; null when there is no such object. */
  get(key: string, range?: ByteRange): Promise<StorageRead | null>;
  /** Size and type of an object without its bytes; null when absent. */
  head(key: string): Promise<StoredObject | null>;
  /** Removes an object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** The public address of an object (absolute URL, or a site-relative path). */
  url(key: string): string;
  /** Present when clients can upload straight to the store with a signed PUT. */
  presignPut?(key: string, options: PresignOptions): Promise<PresignedPut>;
  /** Present when the store has native multipart uploads. */
  multipart?: MultipartStorage;
  /**
   * Objects whose keys start with `prefix`, in key order, after `options.after` (exclusive), at
   * most `options.limit` (default 1000). Optional: upload cleanup uses it to find files no record
   * owns (docs/media.md § Cleanup); a store without it is not swept.
   */
  list?(prefix: string, options?: ListOptions): Promise<ListedObject[]>;
  /**
   * Removes what the store keeps for itself of writes that never finished (a local folder's temp
   * files) when last written before `before` (Unix seconds); returns how many it removed. Optional.
   */
  purgeScratch?(before: number): Promise<number>;
}

/** Options for {@link Storage.list}. */
export interface ListOptions {
  /** List only keys after this one. */
  after?: string | undefined;
  /** At most this many objects (default 1000). */
  limit?: number | undefined;
}

/** One object as {@link Storage.list} reports it. */
export interface ListedObject {
  key: string;
  size: number;
  /** When it was last written, in Unix seconds. */
  modifiedAt: number;
}

/**
 * Bytes as the engine hands them to a store: a Web stream, any async iterable of chunks (a Node
 * stream, say, which the reference server passes straight from the socket), or bytes in memory.
 * Read them with {@link chunksOf}.
 */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Uint8Array;

/** True for a value {@link chunksOf} can read: bytes, a Web stream or an async iterable. */
export function isByteSource(value: unknown): value is ByteSource {
  return (
    value instanceof Uint8Array ||
    value instanceof ReadableStream ||
    (typeof value === "object" && value !== null && Symbol.asyncIterator in value)
  );
}

/** Options for {@link Storage.put}. */
export interface PutOptions {
  contentType: string;
  /**
   * The `Content-Disposition` a store that serves its objects itself (S3) sends with this one:
   * `attachment` makes browsers download it. A local folder ignores it; its file handler derives
   * the same header from the key.
   */
  contentDisposition?: string | undefined;
  /** Reject (and leave nothing behind) once more than this many bytes arrive. */
  maxBytes?: number;
}

/** What a store knows about one object. */
export interface StoredObject {
  size: number;
  contentType?: string | undefined;
  etag?: string | undefined;
}

/** Inclusive byte range, as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

/** An object's bytes (whole, or the requested range) with its metadata. */
export interface StorageRead extends StoredObject {
  body: ReadableStream<Uint8Array>;
  /** The range actually returned, when one was asked for. */
  range?: ByteRange;
}

/** Options for {@link Storage.presignPut}. */
export interface PresignOptions {
  contentType: string;
  /** As {@link PutOptions.contentDisposition}; when set, it is one of the signed headers. */
  contentDisposition?: string | undefined;
  size: number;
  expiresInSeconds: number;
}

/** A signed direct upload: send the bytes to `url` with `method` and exactly these `headers`. */
export interface PresignedPut {
  url: string;
  method: "PUT";
  headers: Record<string, string>;
}

/** Native multipart uploads (S3 style). */
export interface MultipartStorage {
  create(key: string, contentType: string, options?: MultipartOptions): Promise<{ uploadId: string }>;
  uploadPart(input: {
    key: string;
    uploadId: string;
    partNumber: number;
    body: ByteSource;
    size?: number;
  }): Promise<{ etag: string }>;
  complete(input: {
    key: string;
    uploadId: string;
    parts: { partNumber: number; etag: string }[];
  }): Promise<StoredObject>;
  abort(key: string, uploadId: string): Promise<void>;
  /**
   * Multipart uploads not yet completed or aborted, at most `options.limit` (default 1000).
   * Optional: upload cleanup aborts the ones no upload session owns.
   */
  list?(options?: { limit?: number | undefined }): Promise<MultipartUploadInfo[]>;
}

/** A multipart upload in progress, as {@link MultipartStorage.list} reports it. */
export interface MultipartUploadInfo {
  key: string;
  uploadId: string;
  /** When it was created, in Unix seconds. */
  startedAt: number;
}

/** Options for {@link MultipartStorage.create}. */
export interface MultipartOptions {
  /**
   * A promise from the caller: `complete` will list parts 1..N, each of exactly `partSize` bytes
   * but the last (which has 1..`partSize`). A store may then place each part at its offset as it
   * arrives, instead of joining the parts at the end (the local folder does); others ignore it.
   */
  partSize?: number;
  /** As {@link PutOptions.contentDisposition}, for the assembled object. */
  contentDisposition?: string | undefined;
}

/** Thrown by a store when a write exceeds {@link PutOptions.maxBytes}. */
export class StorageLimitError extends Error {
  constructor(readonly maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
    this.name = "StorageLimitError";
  }
}

/**
 * The bytes of a body, chunk by chunk; leaving the loop early cancels the stream (or ends the
 * iterable's iteration, which destroys a Node stream). For storage adapters, which accept every
 * {@link ByteSource} alike.
 */
export async function* chunksOf(body: ByteSource): AsyncGenerator<Uint8Array, void, undefined> {
  if (body instanceof Uint8Array) {
    yield body;
    return;
  }
  if (!(body instanceof ReadableStream)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    // Not awaited: a source that is slow to cancel must not hold up the caller's error.
    if (!finished) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * A body's bytes in one array, or null as soon as they pass `maxBytes` (the rest is not read:
 * leaving {@link chunksOf} early cancels the source).
 */
export async function bytesUpTo(body: ByteSource, maxBytes: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunksOf(body)) {
    size += chunk.byteLength;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
