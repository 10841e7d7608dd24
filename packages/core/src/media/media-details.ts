import type { Insertable } from "kysely";
import * as z from "zod";
import type { MediaTable } from "../db/schema.js";
import type { FileType } from "../files/file-types.js";
import type { ImageSize } from "../files/image-size.js";
import { normalizeAlt } from "../files/media-rows.js";

/** The largest `integer` column value (PostgreSQL's is 32-bit); a larger count is a 400, not a driver error. */
const maxInt32 = 2_147_483_647;

/**
 * What a client may say about a file besides its bytes, on `complete` and on the one-shot upload.
 * Each defaults to null.
 * @see spec § Uploads, § Limits
 */
export const mediaDetailsFields = {
  width: z.number().int().positive().max(maxInt32).nullable().optional(),
  height: z.number().int().positive().max(maxInt32).nullable().optional(),
  // Whole seconds, as spec § Uploads types the one-shot form's field.
  durationSeconds: z.number().int().min(0).max(1e9).nullable().optional(),
  alt: z.string().trim().max(500).nullable().optional(),
  blurhash: z.string().max(200).nullable().optional(),
  waveform: z.string().max(2000).nullable().optional(),
  summary: z.string().max(500).nullable().optional(),
  chars: z.number().int().min(0).max(maxInt32).nullable().optional(),
};

/** The parsed details. */
export type MediaDetails = z.output<z.ZodObject<typeof mediaDetailsFields>>;

/** A stored upload about to become a media record. */
export interface FinishedUpload {
  mediaId: string;
  fileType: Pick<FileType, "mimeType" | "mediaKind">;
  filename: string;
  size: number;
  key: string;
  posterKey: string | null;
  /** Read from the file when the client gave no dimensions. */
  measured: ImageSize | null;
  now: number;
}

/** The media row of a finished upload: unattached, with the client's details and measured size. */
export function mediaRowOf(upload: FinishedUpload, details: MediaDetails): Insertable<MediaTable> {
  const useMeasured = upload.measured !== null && (details.width == null || details.height == null);
  return {
    id: upload.mediaId,
    post_id: null,
    position: null,
    type: "media",
    media_kind: upload.fileType.mediaKind,
    mime_type: upload.fileType.mimeType,
    original_name: upload.filename,
    size: upload.size,
    width: useMeasured ? (upload.measured?.width ?? null) : (details.width ?? null),
    height: useMeasured ? (upload.measured?.height ?? null) : (details.height ?? null),
    duration_seconds: details.durationSeconds ?? null,
    alt: normalizeAlt(details.alt ?? null),
    blurhash: details.blurhash ?? null,
    waveform: details.waveform ?? null,
    summary: details.summary ?? null,
    chars: details.chars ?? null,
    text_content: null,
    storage_key: upload.key,
    poster_key: upload.posterKey,
    preview_key: null,
    created_at: upload.now,
    updated_at: upload.now,
  };
}
