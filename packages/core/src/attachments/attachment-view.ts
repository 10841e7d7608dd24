import type { EngineContext } from "../deps.js";
import type { MediaRow } from "../files/media-rows.js";

/** An attachment object on a post. @see spec § Attachment objects */
export type AttachmentView =
  | {
      type: "media";
      id: string;
      url: string;
      previewUrl: string;
      posterUrl: string | null;
      alt: string | null;
      blurhash: string | null;
      width: number | null;
      height: number | null;
      durationSeconds: number | null;
      mimeType: string;
      originalName: string;
      size: number;
      summary: string | null;
      chars: number | null;
    }
  | {
      type: "text";
      id: string;
      /** Absent only in-process with neither storage nor links (see `Links`). */
      url?: string;
      contentFormat: "markdown";
      contentUrl?: string;
      summary: string | null;
      chars: number | null;
    };

/** The authenticated address of a text attachment's content, where an adapter serves one. */
export function textContentUrl(ctx: EngineContext, id: string): string | undefined {
  return ctx.links?.attachmentContent(id);
}

/** The public address of a stored object (a text attachment without storage falls back to its content URL). */
export function fileUrl(ctx: EngineContext, row: MediaRow): string | undefined {
  if (ctx.storage) return ctx.storage.url(row.storage_key);
  return textContentUrl(ctx, row.id);
}

/** A media row as an attachment object; `contentUrl` is left out of public posts. */
export function toAttachmentView(
  ctx: EngineContext,
  row: MediaRow,
  options: { public: boolean },
): AttachmentView {
  if (row.type === "text") {
    const url = fileUrl(ctx, row);
    const contentUrl = options.public ? undefined : textContentUrl(ctx, row.id);
    return {
      type: "text",
      id: row.id,
      ...(url === undefined ? {} : { url }),
      contentFormat: "markdown",
      ...(contentUrl === undefined ? {} : { contentUrl }),
      summary: row.summary,
      chars: row.chars,
    };
  }
  // A media file exists only where a store was configured; a store removed since has no address.
  const url = fileUrl(ctx, row) ?? "";
  return {
    type: "media",
    id: row.id,
    url,
    previewUrl: row.preview_key && ctx.storage ? ctx.storage.url(row.preview_key) : url,
    posterUrl: row.poster_key && ctx.storage ? ctx.storage.url(row.poster_key) : null,
    alt: row.alt,
    blurhash: row.blurhash,
    width: row.width,
    height: row.height,
    durationSeconds: row.duration_seconds,
    mimeType: row.mime_type,
    originalName: row.original_name,
    size: Number(row.size),
    summary: row.summary,
    chars: row.chars,
  };
}
