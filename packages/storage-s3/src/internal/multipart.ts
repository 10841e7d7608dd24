import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import type { MultipartStorage, StoredObject } from "@quire/core";
import { chunksOf } from "@quire/core";
import { isNotFound } from "../client.js";
import { assertKey } from "./keys.js";
import type { ObjectHeaders, S3Target } from "./put-object.js";

/**
 * S3's native multipart uploads. A streamed part is sent as it arrives when its `size` is given
 * (and fails if the stream does not carry exactly that many bytes); without a size it is buffered
 * first, since S3 needs each part's length up front. `abort` of an upload that is gone is not an
 * error.
 */
export function createS3Multipart(
  target: S3Target,
  head: (key: string) => Promise<StoredObject | null>,
): MultipartStorage {
  return {
    async create(key, contentType, options = {}) {
      assertKey(key);
      const headers = { contentType, contentDisposition: options.contentDisposition };
      return { uploadId: await createUpload(target, key, headers) };
    },

    async uploadPart({ key, uploadId, partNumber, body, size }) {
      assertKey(key);
      let bytes: Uint8Array | AsyncIterable<Uint8Array>;
      if (body instanceof Uint8Array) bytes = body;
      else if (size !== undefined) bytes = exactly(chunksOf(body), size);
      else bytes = await collect(chunksOf(body));
      return { etag: await uploadPart(target, { key, uploadId, partNumber, body: bytes, size }) };
    },

    async complete({ key, uploadId, parts }) {
      assertKey(key);
      const Parts = parts.map(({ partNumber, etag }) => ({ PartNumber: partNumber, ETag: etag }));
      await target.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: target.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts },
        }),
      );
      const stored = await head(key);
      if (!stored) throw new Error(`object ${key} is missing right after its multipart upload completed`);
      return stored;
    },

    async abort(key, uploadId) {
      assertKey(key);
      await abortUpload(target, key, uploadId);
    },
  };
}

async function* exactly(
  chunks: AsyncIterable<Uint8Array>,
  size: number,
): AsyncGenerator<Uint8Array, void, undefined> {
  let seen = 0;
  for await (const chunk of chunks) {
    seen += chunk.byteLength;
    if (seen > size) throw new Error(`part is longer than the ${size} bytes announced`);
    yield chunk;
  }
  if (seen !== size) throw new Error(`part has ${seen} bytes, not the ${size} announced`);
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const list: Uint8Array[] = [];
  for await (const chunk of chunks) list.push(chunk);
  const out = new Uint8Array(list.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of list) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Starts a multipart upload and returns its id. */
async function createUpload(target: S3Target, key: string, headers: ObjectHeaders): Promise<string> {
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
async function uploadPart(
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
async function abortUpload(target: S3Target, key: string, uploadId: string): Promise<void> {
  try {
    await target.client.send(
      new AbortMultipartUploadCommand({ Bucket: target.bucket, Key: key, UploadId: uploadId }),
    );
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
