import * as z from "zod";
import type { EngineContext } from "../deps.js";
import { invalidField } from "../errors.js";
import { classifyFileType, type FileType } from "../files/file-types.js";
import { inspectStoredFile } from "../files/inspect-file.js";
import { checkMediaQuota } from "../files/media-quota.js";
import { checkPosterType, storePoster } from "../files/poster-frame.js";
import { mediaKeys } from "../files/storage-keys.js";
import { storeBody } from "../files/stored-file.js";
import { deleteStoredKeys, requireStorage } from "../files/stored-objects.js";
import { defineOperation, parseInput } from "../operation.js";
import { bytesParam } from "../shared/bytes.js";
import type { ByteSource } from "../storage.js";
import { type MediaDetails, mediaDetailsFields, mediaRowOf } from "./media-details.js";
import { mediaOutput } from "./media-output.js";
import { toMediaRecord } from "./media-view.js";

/** Input of `media.upload`: the file's bytes with its name and type, an optional poster, and details. */
export const uploadMediaInput = z.object({
  file: bytesParam,
  filename: z.string().max(1000),
  contentType: z.string().max(255).optional(),
  /** A video's poster frame (WebP). */
  poster: bytesParam.optional(),
  posterContentType: z.string().max(255).optional(),
  ...mediaDetailsFields,
});

type UploadMediaInput = z.output<typeof uploadMediaInput>;

/**
 * One-shot upload: the file streams straight to storage (never held in memory, cut off past the
 * upload limit), with an optional WebP `poster` and details (`width`, `height`, `alt`, `blurhash`,
 * `waveform`, `summary`, `durationSeconds`, `chars`). Details a transport could read only after the
 * file (form fields after the file part) come as trailing input and are checked the same way. The
 * same type rules and checks as an upload session apply; on any failure nothing stays stored. 201
 * with the media record.
 * @see spec § POST /api/upload
 */
export const uploadMedia = defineOperation({
  id: "media.upload",
  access: "owner",
  description: "Uploads a file in one request and returns its media record.",
  input: uploadMediaInput,
  output: mediaOutput,
  run: async (ctx, input) => {
    requireStorage(ctx);
    // The size is known only once the bytes are read: a quota already used up refuses before, and
    // the received size is checked after, deleting what was stored (docs/hosting.md).
    await checkMediaQuota(ctx, { bytes: null, stage: "upload-start" });
    const now = ctx.clock.now();
    const mediaId = ctx.ids.generate("med");
    const written: string[] = [];
    try {
      const file = await receiveFile(ctx, input, { mediaId, now, written });
      await checkMediaQuota(ctx, { bytes: file.size, stage: "upload" });
      const trailing = ctx.trailingInput ? await ctx.trailingInput() : {};
      const poster = posterOf(input, trailing);
      let posterKey: string | null = null;
      if (poster) {
        checkPosterType(poster.contentType);
        posterKey = mediaKeys({ mediaId, filename: "", extension: "bin", now }).poster;
        written.push(posterKey);
        await storePoster(ctx, { key: posterKey, body: poster.body });
      }
      const details = detailsOf(input, trailing);
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
      // The row as written, from the insert itself: a second read could find it deleted meanwhile.
      return toMediaRecord(
        ctx,
        await ctx.db.insertInto("media").values(row).returningAll().executeTakeFirstOrThrow(),
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

async function receiveFile(
  ctx: EngineContext,
  input: UploadMediaInput,
  store: { mediaId: string; now: number; written: string[] },
): Promise<ReceivedFile> {
  const filename = input.filename.trim().slice(0, 255);
  if (filename === "") throw invalidField("file", "The file has no name (was a file chosen?)");
  const fileType = classifyFileType(input.contentType || "application/octet-stream", filename);
  const { file: key } = mediaKeys({
    mediaId: store.mediaId,
    filename,
    extension: fileType.extension,
    now: store.now,
  });
  store.written.push(key);
  const { size } = await storeBody(ctx, {
    key,
    body: input.file,
    contentType: fileType.storageContentType,
    maxBytes: ctx.config.uploadMaxBytes,
    field: "file",
  });
  return { filename, fileType, key, size };
}

/** The poster, sent with the input or trailing it; one per upload. */
function posterOf(
  input: UploadMediaInput,
  trailing: Record<string, unknown>,
): { body: ByteSource; contentType: string | undefined } | null {
  if (trailing.poster !== undefined && input.poster !== undefined) {
    throw invalidField("poster", "Send one poster frame per upload");
  }
  if (input.poster !== undefined) return { body: input.poster, contentType: input.posterContentType };
  if (trailing.poster === undefined) return null;
  const late = parseInput(trailingPosterSchema, trailing);
  return late.poster ? { body: late.poster, contentType: late.posterContentType } : null;
}

const trailingPosterSchema = uploadMediaInput.pick({ poster: true, posterContentType: true });
const detailsSchema = z.object(mediaDetailsFields);

/** The details: those sent with the input win over trailing ones of the same name. */
function detailsOf(input: UploadMediaInput, trailing: Record<string, unknown>): MediaDetails {
  const sent = Object.fromEntries(
    Object.keys(mediaDetailsFields).flatMap((name) => {
      const value = input[name as keyof MediaDetails];
      return value === undefined ? [] : [[name, value]];
    }),
  );
  if (Object.keys(trailing).length === 0) return sent as MediaDetails;
  return parseInput(detailsSchema, { ...trailing, ...sent });
}
