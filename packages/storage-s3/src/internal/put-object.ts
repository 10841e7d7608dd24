import { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { ByteSource, PutOptions, StoredObject } from "@quire/core";
import { chunksOf, StorageLimitError } from "@quire/core";
import type { S3ClientLike } from "../client.js";

/** The bucket an adapter writes to, and how it cuts streamed bodies. */
export interface S3Target {
  client: S3ClientLike;
  bucket: string;
  partSize: number;
}

/** The headers an object is stored with, and served with by the store. */
export type ObjectHeaders = Pick<PutOptions, "contentType" | "contentDisposition">;

/**
 * Parts on the wire at once. lib-storage's default of 4 was faster on loopback but held 5 parts
 * and grew RSS by 10–23 MiB more than the hand-written upload it replaced; 2 (3 parts held) kept
 * that upload's memory and was faster. See bench/README.md § S3 streamed put.
 */
const PARTS_IN_FLIGHT = 2;

/**
 * Stores a body through lib-storage's `Upload`: bodies that end within one part go up in a single
 * PutObject; longer ones become a multipart upload, two parts sending while the next fills. Past
 * `maxBytes` the stream is cancelled and the multipart upload aborted, as on any failure, so
 * nothing is left behind and an existing object under `key` is untouched.
 */
export async function putObject(
  target: S3Target,
  key: string,
  body: ByteSource,
  { maxBytes, ...headers }: PutOptions,
): Promise<StoredObject> {
  if (body instanceof Uint8Array && maxBytes !== undefined && body.byteLength > maxBytes) {
    throw new StorageLimitError(maxBytes);
  }
  const meter = { bytes: 0 };
  const source = body instanceof Uint8Array ? body : Readable.from(metered(body, maxBytes, meter));
  const upload = new Upload({
    // Upload calls `send` and reads `config`, both in S3ClientLike; its type asks for the whole client.
    client: target.client as S3Client,
    params: {
      Bucket: target.bucket,
      Key: key,
      Body: source,
      ContentType: headers.contentType,
      ContentDisposition: headers.contentDisposition,
    },
    partSize: target.partSize,
    queueSize: PARTS_IN_FLIGHT,
    leavePartsOnError: false,
  });
  try {
    const out = await upload.done();
    const size = body instanceof Uint8Array ? body.byteLength : meter.bytes;
    return { size, contentType: headers.contentType, etag: out.ETag };
  } finally {
    // Upload stops reading when a part fails; this cancels the body instead of leaving it paused.
    if (source instanceof Readable) source.destroy();
  }
}

/** A body's chunks, counted into `meter`; throws StorageLimitError once more than `maxBytes` arrive. */
async function* metered(
  body: ByteSource,
  maxBytes: number | undefined,
  meter: { bytes: number },
): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const chunk of chunksOf(body)) {
    meter.bytes += chunk.byteLength;
    if (maxBytes !== undefined && meter.bytes > maxBytes) throw new StorageLimitError(maxBytes);
    yield chunk;
  }
}
