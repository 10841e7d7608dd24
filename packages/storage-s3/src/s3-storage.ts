import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { ByteRange, ListedObject, Storage, StorageRead, StoredObject } from "@quire/core";
import type { S3ClientLike, S3ConnectionOptions } from "./client.js";
import { createS3Client, isNotFound, statusOf } from "./client.js";
import { assertKey, joinUrl } from "./internal/keys.js";
import { createS3Multipart } from "./internal/multipart.js";
import { putObject, type S3Target } from "./internal/put-object.js";

const MiB = 1024 * 1024;

/** Options for {@link createS3Storage}. */
export interface S3StorageOptions extends S3ConnectionOptions {
  /** A client to use instead of one built from the connection options. */
  client?: S3ClientLike | undefined;
  bucket: string;
  /** Where objects are served from (a CDN, an R2 public bucket URL); derived from the endpoint when absent. */
  publicBaseUrl?: string | undefined;
  /**
   * Part size for puts longer than one part: 5 MiB to 5 GiB, default 8 MiB (so objects up to ~78 GiB).
   * A streamed put holds up to three parts in memory.
   */
  partSize?: number | undefined;
}

/**
 * Storage on any S3-compatible service, with presigned PUT, native multipart and listing
 * (ListObjectsV2, for the engine's orphan sweep). A range that starts
 * at or past the size (or is otherwise invalid) rejects with a RangeError; an `end` past the size
 * is clamped. `size` in a read is the whole object's. An injected client must be created with
 * `requestChecksumCalculation: "WHEN_REQUIRED"` for `presignPut` (see {@link createS3Client}).
 */
export function createS3Storage(options: S3StorageOptions): Storage {
  const partSize = options.partSize ?? 8 * MiB;
  if (!Number.isSafeInteger(partSize) || partSize < 5 * MiB || partSize > 5 * 1024 * MiB) {
    throw new RangeError("createS3Storage: partSize must be a whole number of bytes from 5 MiB to 5 GiB");
  }
  const client = options.client ?? createS3Client(options);
  const { bucket } = options;
  const target: S3Target = { client, bucket, partSize };
  const baseUrl = options.publicBaseUrl ?? defaultPublicBaseUrl(options);

  async function head(key: string): Promise<StoredObject | null> {
    assertKey(key);
    try {
      const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType, etag: out.ETag };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  return {
    async put(key, body, putOptions) {
      assertKey(key);
      return putObject(target, key, body, putOptions);
    },

    async get(key, range) {
      assertKey(key);
      if (range) assertRange(range);
      try {
        const Range = range && `bytes=${range.start}-${range.end}`;
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range }));
        if (!out.Body) throw new Error(`the store sent no body for ${key}`);
        const body = out.Body.transformToWebStream() as ReadableStream<Uint8Array>;
        const info = { contentType: out.ContentType, etag: out.ETag, body };
        if (!range) return { ...info, size: out.ContentLength ?? 0 } satisfies StorageRead;
        return { ...info, ...returnedRange(out.ContentRange, out.ContentLength ?? 0) } satisfies StorageRead;
      } catch (error) {
        if (isNotFound(error)) return null;
        if (statusOf(error) === 416)
          throw new RangeError(`byte range ${range?.start}-${range?.end} starts past the size`);
        throw error;
      }
    },

    head,

    async delete(key) {
      assertKey(key);
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },

    url(key) {
      assertKey(key);
      return joinUrl(baseUrl, key);
    },

    async presignPut(key, { contentType, contentDisposition, size, expiresInSeconds }) {
      assertKey(key);
      if ((await client.config.requestChecksumCalculation()) !== "WHEN_REQUIRED") {
        throw new Error('presignPut needs an S3 client with requestChecksumCalculation: "WHEN_REQUIRED"');
      }
      const command = new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        ContentType: contentType,
        ContentLength: size,
        ContentDisposition: contentDisposition,
      });
      const headers: Record<string, string> = { "content-type": contentType, "content-length": String(size) };
      if (contentDisposition !== undefined) headers["content-disposition"] = contentDisposition;
      const url = await getSignedUrl(client, command, {
        expiresIn: expiresInSeconds,
        signableHeaders: new Set(Object.keys(headers)),
      });
      return { url, method: "PUT", headers };
    },

    async list(prefix, listOptions = {}) {
      const limit = listOptions.limit ?? 1000;
      const found: ListedObject[] = [];
      let after = listOptions.after;
      // ListObjectsV2 answers in key order, at most 1000 keys a page; each page starts after the last key.
      while (found.length < limit) {
        const out = await client.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: prefix,
            StartAfter: after,
            MaxKeys: Math.min(1000, limit - found.length),
          }),
        );
        for (const object of out.Contents ?? []) {
          if (object.Key === undefined) continue;
          const modifiedAt = Math.floor((object.LastModified?.getTime() ?? 0) / 1000);
          found.push({ key: object.Key, size: object.Size ?? 0, modifiedAt });
          after = object.Key;
        }
        if (!out.IsTruncated || !out.Contents?.length) break;
      }
      return found.slice(0, limit);
    },

    multipart: createS3Multipart(target, head),
  };
}

function assertRange({ start, end }: ByteRange): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start > end) {
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
}

/** The range and whole size from `Content-Range`; a store that ignored the range sent everything. */
function returnedRange(
  contentRange: string | undefined,
  contentLength: number,
): { size: number; range: ByteRange } {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange ?? "");
  if (!match) return { size: contentLength, range: { start: 0, end: contentLength - 1 } };
  return { size: Number(match[3]), range: { start: Number(match[1]), end: Number(match[2]) } };
}

/** The bucket's own address: path style on a custom endpoint, virtual-hosted on one or on AWS. */
function defaultPublicBaseUrl(options: S3StorageOptions): string {
  const { bucket, endpoint, region } = options;
  if (endpoint) {
    const url = new URL(endpoint);
    const path = url.pathname.replace(/\/+$/, "");
    if (options.forcePathStyle) return `${url.origin}${path}/${bucket}`;
    return `${url.protocol}//${bucket}.${url.host}${path}`;
  }
  if (region) return `https://${bucket}.s3.${region}.amazonaws.com`;
  throw new Error("createS3Storage: give publicBaseUrl, endpoint or region, so url(key) has an address");
}
