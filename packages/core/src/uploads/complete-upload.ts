import * as z from "zod";
import type { EngineContext } from "../deps.js";
import { EngineError, invalidField } from "../errors.js";
import { classifyFileType } from "../files/file-types.js";
import { inspectStoredFile } from "../files/inspect-file.js";
import { hashStoredObject } from "../files/stored-file.js";
import { requireStorage, storageFailure } from "../files/stored-objects.js";
import { type MediaDetails, mediaDetailsFields, mediaRowOf } from "../media/media-details.js";
import { toMediaRecord } from "../media/media-view.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import {
  abandonCompletion,
  closeSession,
  discardSessionUploads,
  findOpenSession,
  type UploadSessionRow,
} from "./upload-session.js";

const partInput = z.object({
  partNumber: z.number().int().min(1).max(10_000),
  etag: z.string().min(1).max(200),
});

/** Input of `uploads.complete`. */
export const completeUploadInput = z.object({
  id: typeId("upl"),
  ...mediaDetailsFields,
  parts: z.array(partInput).min(1).max(10_000).optional(),
});

type CompleteInput = z.output<typeof completeUploadInput>;
type Part = z.output<typeof partInput>;

/**
 * Turns an open session into a media record (201): assembles a multipart relay from its `parts`,
 * then checks the stored file — size as declared, SHA-256 when declared, leading bytes fitting a
 * declared image, video or audio type — and reads an image's dimensions when none were given. A
 * file that fails a check is deleted and the session aborted; a request that cannot be read
 * (missing parts, no body sent yet) leaves the session open.
 * @see spec § Uploads (`POST /api/uploads/:id/complete`), § Upload session
 */
export const completeUpload = defineOperation({
  id: "uploads.complete",
  access: "owner",
  description: "Finishes an upload session: checks the stored file and creates its media record.",
  input: completeUploadInput,
  run: async (ctx, input) => {
    requireStorage(ctx);
    const session = await findOpenSession(ctx, input.id);
    const parts = await checkReadiness(ctx, session, input);
    await closeSession(ctx, { id: session.id, to: "completed" });
    try {
      const row = await finishUpload(ctx, session, input, parts);
      return toMediaRecord(ctx, row);
    } catch (err) {
      // A file that failed its checks after the claim: the session ends aborted, its bytes deleted.
      await abandonCompletion(ctx, session.id);
      await discardSessionUploads(ctx, session);
      throw err;
    }
  },
});

/** What must be true before the session is claimed; returns the parts to assemble (multipart). */
async function checkReadiness(
  ctx: EngineContext,
  session: UploadSessionRow,
  input: CompleteInput,
): Promise<Part[]> {
  if (session.transport === "relay" && session.received_size === null) {
    throw invalidField("body", "Send the file to the transport URL before completing");
  }
  if (session.transport === "put" && !(await requireStorage(ctx).head(session.storage_key))) {
    throw invalidField("file", "Send the file to the transport URL before completing");
  }
  if (session.transport !== "multipartRelay") return [];
  if (!input.parts) throw invalidField("parts", "A multipartRelay upload is completed with its parts");
  return checkParts(ctx, session, input.parts);
}

/** The listed parts must be 1..N in order, each as stored, with the ETag the store gave it. */
async function checkParts(ctx: EngineContext, session: UploadSessionRow, parts: Part[]): Promise<Part[]> {
  const count = Math.max(1, Math.ceil(Number(session.size) / Number(session.part_size)));
  if (parts.length !== count) throw invalidField("parts", `This file has ${count} parts; list each once`);
  const stored = await ctx.db
    .selectFrom("upload_parts")
    .select(["part_number", "etag"])
    .where("session_id", "=", session.id)
    .execute();
  const etags = new Map(stored.map((part) => [Number(part.part_number), part.etag]));
  for (const [index, part] of parts.entries()) {
    if (part.partNumber !== index + 1) throw invalidField("parts", "List the parts in order, from 1");
    const etag = etags.get(part.partNumber);
    if (etag === undefined) throw invalidField("parts", `Part ${part.partNumber} has not been uploaded`);
    if (unquote(etag) !== unquote(part.etag)) {
      throw invalidField(
        "parts",
        `Part ${part.partNumber} has a different ETag; send the one its upload returned`,
      );
    }
  }
  return parts.map((part) => ({ partNumber: part.partNumber, etag: etags.get(part.partNumber) as string }));
}

async function finishUpload(
  ctx: EngineContext,
  session: UploadSessionRow,
  details: MediaDetails,
  parts: Part[],
) {
  const storage = requireStorage(ctx);
  const key = session.storage_key;
  if (session.transport === "multipartRelay") {
    const { multipart } = storage;
    if (!multipart || session.multipart_upload_id === null) {
      throw new EngineError("CONFIGURATION_ERROR", "The file store no longer offers multipart uploads");
    }
    try {
      await multipart.complete({ key, uploadId: session.multipart_upload_id, parts });
    } catch (err) {
      throw storageFailure(ctx, err);
    }
  }
  const head = await storage.head(key);
  const size = Number(session.size);
  if (!head) throw invalidField("file", "The file has not been uploaded");
  if (head.size !== size)
    throw invalidField("file", `The file has ${head.size} bytes, not the ${size} declared`);
  if (session.checksum_sha256 && session.transport !== "relay") {
    if ((await hashStoredObject(storage, key)) !== session.checksum_sha256) {
      throw invalidField("checksumSha256", "The file does not match its declared SHA-256");
    }
  }
  const fileType = classifyFileType(session.mime_type, session.filename);
  const { measured } = await inspectStoredFile(ctx, {
    key,
    fileType,
    field: "file",
    needSize: details.width == null || details.height == null,
  });
  const now = ctx.clock.now();
  const row = mediaRowOf(
    {
      mediaId: session.media_id,
      fileType,
      filename: session.filename,
      size,
      key,
      posterKey: session.poster_key,
      measured,
      now,
    },
    details,
  );
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto("media").values(row).execute();
    await trx.deleteFrom("upload_parts").where("session_id", "=", session.id).execute();
  });
  return ctx.db.selectFrom("media").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
}

function unquote(etag: string): string {
  return etag.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
}
