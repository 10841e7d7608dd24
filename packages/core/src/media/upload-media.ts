import * as z from "zod";
import { deleteStoredKeys } from "../attachments/save-attachments.js";
import type { EngineContext } from "../deps.js";
import { invalidField, type ValidationDetails, validationError } from "../errors.js";
import { defineOperation } from "../operation.js";
import { classifyFileType, type FileType } from "../uploads/file-types.js";
import { inspectStoredFile } from "../uploads/inspect-file.js";
import { type MediaDetails, mediaDetailsFields, mediaRowOf } from "../uploads/media-details.js";
import { checkPosterType, storePoster } from "../uploads/put-upload-poster.js";
import { mediaKeys } from "../uploads/storage-keys.js";
import { requireStorage, storeBody } from "../uploads/stored-file.js";
import { discardPart, type UploadFormPart, uploadFormParam } from "../uploads/upload-form.js";
import { toMediaRecord } from "./media-view.js";

/** A file part of the form. */
type FilePart = Extract<UploadFormPart, { body: unknown }>;

/**
 * One-shot upload: the form's `file` streams straight to storage (never held in memory, cut off past
 * the upload limit), an optional WebP `poster` beside it, and the text fields (`width`, `height`,
 * `alt`, `blurhash`, `waveform`, `summary`, `durationSeconds`, `chars`) may come before or after
 * the file. The same type rules and checks as an upload session apply; on any failure nothing
 * stays stored. 201 with the media record.
 * @see spec § POST /api/upload
 */
export const uploadMedia = defineOperation({
  id: "media.upload",
  access: "owner",
  input: z.object({ form: uploadFormParam }),
  run: async (ctx, input) => {
    requireStorage(ctx);
    const now = ctx.clock.now();
    const mediaId = ctx.ids.generate("med");
    const written: string[] = [];
    try {
      const received = await receiveForm(ctx, { form: input.form, mediaId, now, written });
      const details = parseDetails(received.fields);
      const { file, posterKey } = received;
      if (posterKey !== null && file.fileType.mediaKind !== "video") {
        throw invalidField("poster", "Only a video has a poster frame");
      }
      const { measured } = await inspectStoredFile(ctx, {
        key: file.key,
        fileType: file.fileType,
        field: "file",
        needSize: details.width == null || details.height == null,
      });
      const row = mediaRowOf({ mediaId, ...file, posterKey, measured, now }, details);
      await ctx.db.insertInto("media").values(row).execute();
      return toMediaRecord(
        ctx,
        await ctx.db.selectFrom("media").selectAll().where("id", "=", mediaId).executeTakeFirstOrThrow(),
      );
    } catch (err) {
      await deleteStoredKeys(ctx, written);
      throw err;
    }
  },
});

interface ReceivedFile {
  filename: string;
  fileType: FileType;
  key: string;
  size: number;
}

/** Reads the form in order, storing the file and poster as they stream by; text fields are kept. */
async function receiveForm(
  ctx: EngineContext,
  input: {
    form: Iterable<UploadFormPart> | AsyncIterable<UploadFormPart>;
    mediaId: string;
    now: number;
    written: string[];
  },
): Promise<{ file: ReceivedFile; posterKey: string | null; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  let file: ReceivedFile | undefined;
  let posterKey: string | null = null;
  for await (const part of input.form) {
    if (!("body" in part)) {
      if (part.name === "file" || part.name === "poster") throw invalidField(part.name, "Expected a file");
      if (!(part.name in fields)) fields[part.name] = part.value;
    } else if (part.name === "file") {
      if (file) throw invalidField("file", "Send one file per upload");
      file = await receiveFile(ctx, part, input);
    } else if (part.name === "poster") {
      if (posterKey !== null) throw invalidField("poster", "Send one poster frame per upload");
      checkPosterType(part.contentType);
      posterKey = mediaKeys({
        mediaId: input.mediaId,
        filename: "",
        extension: "bin",
        now: input.now,
      }).poster;
      input.written.push(posterKey);
      await storePoster(ctx, { key: posterKey, body: part.body });
    } else {
      await discardPart(part);
    }
  }
  if (!file) throw invalidField("file", "Send the file in the form field `file`");
  return { file, posterKey, fields };
}

async function receiveFile(
  ctx: EngineContext,
  part: FilePart,
  input: { mediaId: string; now: number; written: string[] },
): Promise<ReceivedFile> {
  const filename = part.filename.trim().slice(0, 255);
  if (filename === "") throw invalidField("file", "The file has no name (was a file chosen?)");
  const fileType = classifyFileType(part.contentType || "application/octet-stream", filename);
  const { file: key } = mediaKeys({
    mediaId: input.mediaId,
    filename,
    extension: fileType.extension,
    now: input.now,
  });
  input.written.push(key);
  const { size } = await storeBody(ctx, {
    key,
    body: part.body,
    contentType: fileType.storageContentType,
    maxBytes: ctx.config.uploadMaxBytes,
    field: "file",
  });
  return { filename, fileType, key, size };
}

const detailsSchema = z.object(mediaDetailsFields);

/** The text fields, read like any operation input (an empty field counts as absent). */
function parseDetails(fields: Record<string, string>): MediaDetails {
  const present = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ""));
  const parsed = detailsSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const details = z.flattenError(parsed.error) as ValidationDetails;
  const field = Object.keys(details.fieldErrors)[0] ?? "form";
  throw validationError(`Invalid input: ${field}: ${details.fieldErrors[field]?.[0] ?? ""}`, details);
}
