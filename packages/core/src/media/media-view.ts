import { fileUrl, textContentUrl } from "../attachments/attachment-view.js";
import type { EngineContext } from "../deps.js";
import type { MediaRow } from "../files/media-rows.js";

/** Fields every media record has. */
interface MediaRecordBase {
  id: string;
  postId: string | null;
  mediaKind: "image" | "video" | "audio" | "text" | "document";
  mimeType: string;
  originalName: string;
  size: number;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  alt: string | null;
  blurhash: string | null;
  waveform: string | null;
  summary: string | null;
  chars: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A media record. @see spec § Media record */
export type MediaRecord =
  | (MediaRecordBase & { type: "media"; url: string; previewUrl: string; posterUrl: string | null })
  | (MediaRecordBase & { type: "text"; url?: string; contentFormat: "markdown"; contentUrl?: string });

/**
 * The media record of a row: an uploaded file (`media`, with `previewUrl` and `posterUrl`) or a
 * text attachment (`text`, with `contentFormat` and `contentUrl`). No resized previews exist yet,
 * so `previewUrl` is the file URL.
 */
export function toMediaRecord(ctx: EngineContext, row: MediaRow): MediaRecord {
  const url = fileUrl(ctx, row);
  const base: MediaRecordBase = {
    id: row.id,
    postId: row.post_id,
    mediaKind: row.media_kind as MediaRecordBase["mediaKind"],
    mimeType: row.mime_type,
    originalName: row.original_name,
    size: Number(row.size),
    width: row.width,
    height: row.height,
    durationSeconds: row.duration_seconds === null ? null : Number(row.duration_seconds),
    alt: row.alt,
    blurhash: row.blurhash,
    waveform: row.waveform,
    summary: row.summary,
    chars: row.chars,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  if (row.type === "text") {
    const contentUrl = textContentUrl(ctx, row.id);
    return {
      type: "text",
      ...base,
      ...(url === undefined ? {} : { url }),
      contentFormat: "markdown",
      ...(contentUrl === undefined ? {} : { contentUrl }),
    };
  }
  // Media files exist only where a store was configured (their operations require one).
  const fileAddress = url ?? "";
  return {
    type: "media",
    ...base,
    url: fileAddress,
    previewUrl: row.preview_key && ctx.storage ? ctx.storage.url(row.preview_key) : fileAddress,
    posterUrl: row.poster_key && ctx.storage ? ctx.storage.url(row.poster_key) : null,
  };
}
