import {
  type ByteRange,
  chunksOf,
  type Storage,
  StorageLimitError,
  type StorageRead,
  type StoredObject,
} from "../src/storage.js";

/** One stored object of a {@link MemoryStorage}, with the time (the test clock's) it was written. */
interface MemoryObject {
  bytes: Uint8Array;
  contentType: string;
  modifiedAt: number;
}

/** A multipart upload in progress. */
interface MemoryUpload {
  key: string;
  contentType: string;
  startedAt: number;
  parts: Map<number, { etag: string; bytes: Uint8Array }>;
}

/** What a {@link MemoryStorage} is about to do, for a fault to intercept. */
export type StorageStep =
  | "put"
  | "get"
  | "head"
  | "delete"
  | "multipart.create"
  | "multipart.uploadPart"
  | "multipart.complete"
  | "multipart.abort";

/**
 * A {@link Storage} in memory, for core's tests: objects and multipart uploads in maps, the time
 * of each write from the test's clock, and a `fault` hook run before every step (after a
 * multipart upload is assembled, for `multipart.complete`), which may throw or never resolve to
 * stand for a failing store or a process that died there. `scratch` stands for temp files a store
 * keeps for itself (a local folder's `.tmp`), by name and time.
 */
export interface MemoryStorage extends Storage {
  objects: Map<string, MemoryObject>;
  uploads: Map<string, MemoryUpload>;
  scratch: Map<string, number>;
  fault: ((step: StorageStep, key: string) => Promise<void> | void) | undefined;
}

/** A {@link MemoryStorage} whose writes are stamped with `now()`. */
export function createMemoryStorage(now: () => number): MemoryStorage {
  const objects = new Map<string, MemoryObject>();
  const uploads = new Map<string, MemoryUpload>();
  const scratch = new Map<string, number>();
  let nextUpload = 1;

  const step = async (name: StorageStep, key: string) => {
    await storage.fault?.(name, key);
  };

  const storage: MemoryStorage = {
    objects,
    uploads,
    scratch,
    fault: undefined,

    async put(key, body, { contentType, maxBytes }) {
      await step("put", key);
      const bytes = await collect(body, maxBytes);
      objects.set(key, { bytes, contentType, modifiedAt: now() });
      return infoOf(key, bytes, contentType);
    },

    async get(key, range) {
      await step("get", key);
      const object = objects.get(key);
      if (!object) return null;
      return readOf(key, object, range);
    },

    async head(key) {
      await step("head", key);
      const object = objects.get(key);
      return object ? infoOf(key, object.bytes, object.contentType) : null;
    },

    async delete(key) {
      await step("delete", key);
      objects.delete(key);
    },

    url: (key) => `/media/${key}`,

    async list(prefix, options = {}) {
      const after = options.after ?? "";
      return [...objects.keys()]
        .filter((key) => key.startsWith(prefix) && key > after)
        .sort()
        .slice(0, options.limit ?? 1000)
        .map((key) => {
          const object = objects.get(key) as MemoryObject;
          return { key, size: object.bytes.byteLength, modifiedAt: object.modifiedAt };
        });
    },

    async purgeScratch(before) {
      let purged = 0;
      for (const [name, writtenAt] of scratch) {
        if (writtenAt < before) {
          scratch.delete(name);
          purged++;
        }
      }
      return purged;
    },

    multipart: {
      async create(key, contentType) {
        await step("multipart.create", key);
        const uploadId = `upload-${nextUpload++}`;
        uploads.set(uploadId, { key, contentType, startedAt: now(), parts: new Map() });
        return { uploadId };
      },

      async uploadPart({ key, uploadId, partNumber, body }) {
        await step("multipart.uploadPart", key);
        const upload = uploadOf(uploads, key, uploadId);
        const bytes = await collect(body);
        const etag = `"${uploadId}-${partNumber}-${bytes.byteLength}-${upload.parts.size}"`;
        upload.parts.set(partNumber, { etag, bytes });
        return { etag };
      },

      async complete({ key, uploadId, parts }) {
        const upload = uploadOf(uploads, key, uploadId);
        const pieces = parts.map(({ partNumber, etag }) => {
          const part = upload.parts.get(partNumber);
          if (part?.etag !== etag) throw new Error(`part ${partNumber} with ETag ${etag} not found`);
          return part.bytes;
        });
        const bytes = concat(pieces);
        objects.set(key, { bytes, contentType: upload.contentType, modifiedAt: now() });
        uploads.delete(uploadId);
        await step("multipart.complete", key);
        return infoOf(key, bytes, upload.contentType);
      },

      async abort(key, uploadId) {
        await step("multipart.abort", key);
        if (uploads.get(uploadId)?.key === key) uploads.delete(uploadId);
      },

      async list() {
        return [...uploads].map(([uploadId, upload]) => ({
          key: upload.key,
          uploadId,
          startedAt: upload.startedAt,
        }));
      },
    },
  };
  return storage;
}

function uploadOf(uploads: Map<string, MemoryUpload>, key: string, uploadId: string): MemoryUpload {
  const upload = uploads.get(uploadId);
  if (!upload || upload.key !== key) throw new Error(`no such multipart upload ${uploadId}`);
  return upload;
}

async function collect(body: Parameters<Storage["put"]>[1], maxBytes?: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunksOf(body)) {
    size += chunk.byteLength;
    if (maxBytes !== undefined && size > maxBytes) throw new StorageLimitError(maxBytes);
    chunks.push(chunk);
  }
  return concat(chunks);
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function infoOf(key: string, bytes: Uint8Array, contentType: string): StoredObject {
  return { size: bytes.byteLength, contentType, etag: `"${key}:${bytes.byteLength}"` };
}

function readOf(key: string, object: MemoryObject, range?: ByteRange): StorageRead {
  const size = object.bytes.byteLength;
  const info = infoOf(key, object.bytes, object.contentType);
  if (!range) return { ...info, body: streamOf(object.bytes) };
  if (range.start >= size)
    throw new RangeError(`byte range ${range.start}-${range.end} starts past the size`);
  const returned = { start: range.start, end: Math.min(range.end, size - 1) };
  return {
    ...info,
    body: streamOf(object.bytes.subarray(returned.start, returned.end + 1)),
    range: returned,
  };
}

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes.slice());
      controller.close();
    },
  });
}
