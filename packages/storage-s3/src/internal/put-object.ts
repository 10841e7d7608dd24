import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import type { ByteSource, PutOptions, StoredObject } from "@quire/core";
import { StorageLimitError } from "@quire/core";
import type { S3ClientLike } from "../client.js";
import { isNotFound } from "../client.js";
import { partsOf } from "./parts.js";

/** The bucket an adapter writes to, and how it cuts streamed bodies. */
export interface S3Target {
  client: S3ClientLike;
  bucket: string;
  partSize: number;
}

/**
 * Stores a body. Bytes, and streams that end within one part, go up in a single PutObject; longer
 * streams become a multipart upload, one part uploading while the next fills, so memory stays at
 * two parts. Past `maxBytes` the stream is cancelled and any multipart upload aborted, so nothing
 * is left behind and an existing object under `key` is untouched.
 */
export async function putObject(
  target: S3Target,
  key: string,
  body: ByteSource,
  { maxBytes, ...headers }: PutOptions,
): Promise<StoredObject> {
  if (body instanceof Uint8Array) {
    if (maxBytes !== undefined && body.byteLength > maxBytes) throw new StorageLimitError(maxBytes);
    return putWhole(target, key, body, headers);
  }
  const { client, bucket } = target;
  let uploadId: string | undefined;
  const parts: { PartNumber: number; ETag: string }[] = [];
  let size = 0;
  let inFlight: Promise<void> = Promise.resolve();
  try {
    for await (const part of partsOf(body, target.partSize, maxBytes)) {
      if (part.last && uploadId === undefined) return await putWhole(target, key, part.bytes, headers);
      uploadId ??= await createUpload(target, key, headers);
      await inFlight;
      const PartNumber = parts.length + 1;
      size += part.bytes.byteLength;
      inFlight = uploadPart(target, { key, uploadId, partNumber: PartNumber, body: part.bytes }).then(
        (ETag) => {
          parts.push({ PartNumber, ETag });
        },
      );
      // Awaited on the next turn or after the loop; until then a failure must not count as unhandled.
      inFlight.catch(() => {});
    }
    await inFlight;
    const done = await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    return { size, contentType: headers.contentType, etag: done.ETag };
  } catch (error) {
    if (uploadId !== undefined) {
      await inFlight.catch(() => {});
      await abortUpload(target, key, uploadId).catch(() => {});
    }
    throw error;
  }
}

/** The headers an object is stored with, and served with by the store. */
export type ObjectHeaders = Pick<PutOptions, "contentType" | "contentDisposition">;

async function putWhole(
  target: S3Target,
  key: string,
  bytes: Uint8Array,
  headers: ObjectHeaders,
): Promise<StoredObject> {
  const out = await target.client.send(
    new PutObjectCommand({
      Bucket: target.bucket,
      Key: key,
      Body: bytes,
      ContentLength: bytes.byteLength,
      ContentType: headers.contentType,
      ContentDisposition: headers.contentDisposition,
    }),
  );
  return { size: bytes.byteLength, contentType: headers.contentType, etag: out.ETag };
}

/** Starts a multipart upload and returns its id. */
export async function createUpload(target: S3Target, key: string, headers: ObjectHeaders): Promise<string> {
  const out = await target.client.send(
    new CreateMultipartUploadCommand({
      Bucket: target.bucket,
      Key: key,
      ContentType: headers.contentType,
      ContentDisposition: headers.contentDisposition,
    }),
  );
  if (!out.UploadId) throw new Error("the store started a multipart upload without an UploadId");
  return out.UploadId;
}

/** Uploads one part of known length and returns its ETag. */
export async function uploadPart(
  target: S3Target,
  part: {
    key: string;
    uploadId: string;
    partNumber: number;
    body: Uint8Array | AsyncIterable<Uint8Array>;
    size?: number;
  },
): Promise<string> {
  const length = part.body instanceof Uint8Array ? part.body.byteLength : part.size;
  const out = await target.client.send(
    new UploadPartCommand({
      Bucket: target.bucket,
      Key: part.key,
      UploadId: part.uploadId,
      PartNumber: part.partNumber,
      Body: part.body instanceof Uint8Array ? part.body : Readable.from(part.body),
      ContentLength: length,
    }),
  );
  if (!out.ETag) throw new Error(`the store accepted part ${part.partNumber} without an ETag`);
  return out.ETag;
}

/** Aborts a multipart upload; an upload that is already gone is not an error. */
export async function abortUpload(target: S3Target, key: string, uploadId: string): Promise<void> {
  try {
    await target.client.send(
      new AbortMultipartUploadCommand({ Bucket: target.bucket, Key: key, UploadId: uploadId }),
    );
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
