import * as z from "zod";
import type { EngineContext } from "../deps.js";
import { invalidField } from "../errors.js";
import { classifyFileType, type FileType, servingOf } from "../files/file-types.js";
import { checkMediaQuota } from "../files/media-quota.js";
import { checksumParam } from "../files/sha256.js";
import { mediaKeys } from "../files/storage-keys.js";
import { requireStorage, storageFailure } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import type { Storage } from "../storage.js";
import { cleanupExpiredUploads } from "./cleanup-expired-uploads.js";
import { uploadInitOutput } from "./upload-output.js";
import { sessionLifetimeSeconds } from "./upload-session.js";

/** How the client sends the file. @see spec § POST /api/uploads/init */
export type UploadTransport =
  | { kind: "relay"; method: "PUT"; url?: string }
  | { kind: "multipartRelay"; method: "PUT"; url?: string; partSize: number }
  | { kind: "put"; url: string; method: "PUT"; headers: Record<string, string>; expiresAt: number };

/** `{ url }` where an adapter serves the upload's address; in-process, the session id is enough. */
function urlOf(url: string | undefined): { url?: string } {
  return url === undefined ? {} : { url };
}

/** S3 and the fs store take at most this many parts. */
const maxParts = 10_000;

/** Input of `uploads.init`. */
export const initUploadInput = z.object({
  filename: z.string().trim().min(1).max(255),
  contentType: z.string().min(1).max(255),
  size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  checksumSha256: checksumParam.optional(),
});

/**
 * Opens an upload session and picks its transport: `multipartRelay` for a file above the multipart
 * threshold when the store has multipart, a presigned `put` when the store can sign, `relay`
 * otherwise. Unsupported image, video and audio types, and sizes past the upload limit, are 400.
 * Expired sessions are cleaned up a few at a time on the way.
 * @see spec § Uploads, § Upload session
 */
export const initUpload = defineOperation({
  id: "uploads.init",
  access: "owner",
  description: "Opens an upload session and picks how the file is sent.",
  input: initUploadInput,
  output: uploadInitOutput,
  run: async (ctx, input) => {
    const storage = requireStorage(ctx);
    await cleanupExpiredUploads(ctx, { limit: 10, sweep: false }).catch((err: unknown) => {
      ctx.logger.warn("upload cleanup failed", { error: String(err) });
    });
    const fileType = classifyFileType(input.contentType, input.filename);
    if (input.size > ctx.config.uploadMaxBytes) {
      throw invalidField("size", `Files may be at most ${ctx.config.uploadMaxBytes} bytes`);
    }
    await checkMediaQuota(ctx, { bytes: input.size, stage: "init" });
    const now = ctx.clock.now();
    const id = ctx.ids.generate("upl");
    const mediaId = ctx.ids.generate("med");
    const key = mediaKeys({ mediaId, filename: input.filename, extension: fileType.extension, now }).file;
    const expiresAt = now + sessionLifetimeSeconds;
    const plan = await planTransport(ctx, storage, { id, key, size: input.size, fileType, expiresAt });
    try {
      await ctx.db
        .insertInto("upload_sessions")
        .values({
          id,
          state: "open",
          transport: plan.transport.kind,
          filename: input.filename,
          mime_type: fileType.mimeType,
          media_kind: fileType.mediaKind,
          size: input.size,
          checksum_sha256: input.checksumSha256 ?? null,
          media_id: mediaId,
          storage_key: key,
          poster_key: null,
          multipart_upload_id: plan.multipartUploadId,
          part_size: plan.transport.kind === "multipartRelay" ? plan.transport.partSize : null,
          received_size: null,
          created_at: now,
          updated_at: now,
          expires_at: expiresAt,
        })
        .execute();
    } catch (err) {
      if (plan.multipartUploadId) await storage.multipart?.abort(key, plan.multipartUploadId).catch(() => {});
      throw err;
    }
    return { id, transport: plan.transport };
  },
});

async function planTransport(
  ctx: EngineContext,
  storage: Storage,
  input: { id: string; key: string; size: number; fileType: FileType; expiresAt: number },
): Promise<{ transport: UploadTransport; multipartUploadId: string | null }> {
  const contentType = input.fileType.storageContentType;
  const { contentDisposition } = servingOf(input.key);
  try {
    if (storage.multipart && input.size > ctx.config.uploadMultipartThreshold) {
      const partSize = Math.max(ctx.config.uploadPartSize, Math.ceil(input.size / maxParts));
      const { uploadId } = await storage.multipart.create(input.key, contentType, {
        partSize,
        contentDisposition,
      });
      return {
        transport: {
          kind: "multipartRelay",
          method: "PUT",
          ...urlOf(ctx.links?.uploadPart(input.id)),
          partSize,
        },
        multipartUploadId: uploadId,
      };
    }
    if (storage.presignPut) {
      const signed = await storage.presignPut(input.key, {
        contentType,
        contentDisposition,
        size: input.size,
        expiresInSeconds: sessionLifetimeSeconds,
      });
      return {
        transport: {
          kind: "put",
          url: signed.url,
          method: signed.method,
          headers: signed.headers,
          expiresAt: input.expiresAt,
        },
        multipartUploadId: null,
      };
    }
  } catch (err) {
    throw storageFailure(ctx, err);
  }
  return {
    transport: { kind: "relay", method: "PUT", ...urlOf(ctx.links?.uploadBody(input.id)) },
    multipartUploadId: null,
  };
}
