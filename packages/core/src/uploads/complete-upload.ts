import type { Insertable, Selectable } from "kysely";
import * as z from "zod";
import type { MediaTable } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { conflict, EngineError, invalidField, isEngineError } from "../errors.js";
import { classifyFileType } from "../files/file-types.js";
import { inspectStoredFile } from "../files/inspect-file.js";
import { checkMediaQuota } from "../files/media-quota.js";
import { hashStoredObject } from "../files/stored-file.js";
import { requireStorage, storageFailure } from "../files/stored-objects.js";
import { type MediaDetails, mediaDetailsFields, mediaRowOf } from "../media/media-details.js";
import { mediaOutput } from "../media/media-output.js";
import { toMediaRecord } from "../media/media-view.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import type { StoredObject } from "../storage.js";
import {
  type CompletionClaim,
  claimCompletion,
  discardSessionUploads,
  findOpenSession,
  finishCompletion,
  holdClaim,
  settleClaim,
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
 *
 * Crash-safe: the session is claimed (`completing`) for the work, and the media record and the
 * `completed` state are written in one transaction at the end. A store or database failure on the
 * way leaves the session open with its bytes; a process that dies leaves a claim that lapses, and
 * a retry completes from the bytes already stored.
 * @see spec § Uploads (`POST /api/uploads/:id/complete`), § Upload session, docs/media.md
 */
export const completeUpload = defineOperation({
  id: "uploads.complete",
  access: "owner",
  description: "Finishes an upload session: checks the stored file and creates its media record.",
  input: completeUploadInput,
  output: mediaOutput,
  run: async (ctx, input) => {
    requireStorage(ctx);
    const session = await findOpenSession(ctx, input.id);
    const parts = await checkReadiness(ctx, session, input);
    const claim = await claimCompletion(ctx, session.id);
    const hold = holdClaim(ctx, claim);
    try {
      // The quota may have filled since init (docs/hosting.md): checked before the parts are joined.
      await checkMediaQuota(ctx, { bytes: Number(session.size), stage: "complete" });
      const row = await prepareMediaRow(ctx, session, input, parts).catch((err: unknown) => {
        throw isEngineError(err) ? err : storageFailure(ctx, err);
      });
      await hold.stop();
      return toMediaRecord(ctx, await commitCompletion(ctx, { claim, row }));
    } catch (err) {
      await hold.stop();
      if (isEngineError(err) && (err.code === "VALIDATION_ERROR" || err.code === "MEDIA_QUOTA_EXCEEDED")) {
        // The file failed its checks or does not fit the quota: the session ends aborted, its bytes deleted.
        if (await settleClaim(ctx, { claim, to: "aborted" })) await discardSessionUploads(ctx, session);
      } else {
        // The store or the database failed: the bytes stay, and the client may complete again.
        await settleClaim(ctx, { claim, to: "open" });
      }
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

/** Assembles and checks the stored file; returns the media row to insert. Failures of the store are thrown as they are. */
async function prepareMediaRow(
  ctx: EngineContext,
  session: UploadSessionRow,
  details: MediaDetails,
  parts: Part[],
) {
  const storage = requireStorage(ctx);
  const key = session.storage_key;
  const size = Number(session.size);
  let head = await storage.head(key);
  if (session.transport === "multipartRelay" && head?.size !== size) {
    head = await assembleParts(ctx, session, parts);
  }
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
  return mediaRowOf(
    {
      mediaId: session.media_id,
      fileType,
      filename: session.filename,
      size,
      key,
      posterKey: session.poster_key,
      measured,
      now: ctx.clock.now(),
    },
    details,
  );
}

/**
 * Has the store join a multipart relay's parts. An earlier completion that died after this step
 * left the joined file in place (and no upload to join): the caller finds it and skips this.
 */
async function assembleParts(
  ctx: EngineContext,
  session: UploadSessionRow,
  parts: Part[],
): Promise<StoredObject> {
  const { multipart } = requireStorage(ctx);
  if (!multipart || session.multipart_upload_id === null) {
    throw new EngineError("CONFIGURATION_ERROR", "The file store no longer offers multipart uploads");
  }
  return multipart.complete({ key: session.storage_key, uploadId: session.multipart_upload_id, parts });
}

/**
 * The media record and the `completed` state, in one transaction: a crash leaves neither. A claim
 * lost meanwhile (it lapsed and another request took the session) is a 409 and writes nothing.
 * Answers the media row as inserted (read after the commit, it could already be deleted).
 */
async function commitCompletion(
  ctx: EngineContext,
  input: { claim: CompletionClaim; row: Insertable<MediaTable> },
): Promise<Selectable<MediaTable>> {
  const { claim, row } = input;
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await finishCompletion(trx, { claim, now: ctx.clock.now() }))) {
      throw conflict(`Upload ${claim.id} was completed or taken over by another request`);
    }
    const media = await trx.insertInto("media").values(row).returningAll().executeTakeFirstOrThrow();
    await trx.deleteFrom("upload_parts").where("session_id", "=", claim.id).execute();
    return media;
  });
}

function unquote(etag: string): string {
  return etag.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
}
