import { S3Client } from "@aws-sdk/client-s3";

/**
 * The slice of an AWS SDK v3 `S3Client` this adapter uses: `send` for the object and multipart
 * commands, and the `config`, `middlewareStack` and `destroy` that the request presigner expects.
 */
export type S3ClientLike = Pick<S3Client, "send" | "config" | "middlewareStack" | "destroy">;

/** How to reach the store when no client is injected. */
export interface S3ConnectionOptions {
  region?: string | undefined;
  /** An S3-compatible endpoint (R2, MinIO, …); AWS S3 itself when absent. */
  endpoint?: string | undefined;
  /** Address buckets as `endpoint/bucket` rather than `bucket.endpoint`. */
  forcePathStyle?: boolean | undefined;
  /** Static keys; the SDK's default provider chain (env, profile, role) when absent. */
  credentials?:
    | { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined }
    | undefined;
}

/**
 * Creates an `S3Client`. Checksums are sent and checked only where the API requires them: the
 * SDK's default would bake the CRC32 of an empty body into presigned PUT URLs, and several
 * S3-compatible services reject its checksum trailers.
 */
export function createS3Client(options: S3ConnectionOptions): S3Client {
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** True when the store answered 404 for an object (not for a missing bucket, which is a setup error). */
export function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404 && (error as { name?: unknown }).name !== "NoSuchBucket";
}

/** The HTTP status of an SDK error, if it has one. */
export function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}
