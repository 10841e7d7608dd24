import type { Selectable } from "kysely";
import type { MediaTable } from "../db/schema.js";
import type { EngineContext } from "../deps.js";

/** A media row as read. */
export type MediaRow = Selectable<MediaTable>;

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
      url: string;
      contentFormat: "markdown";
      contentUrl?: string;
      summary: string | null;
      chars: number | null;
    };

/** The authenticated address of a text attachment's content. */
export function textContentUrl(ctx: EngineContext, id: string): string {
  return `${ctx.config.sitePathPrefix}/api/attachments/${id}/content`;
}

/** The public address of a stored object (a text attachment without storage falls back to its content URL). */
export function fileUrl(ctx: EngineContext, row: MediaRow): string {
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
    const view: AttachmentView = {
      type: "text",
      id: row.id,
      url: fileUrl(ctx, row),
      contentFormat: "markdown",
      contentUrl: textContentUrl(ctx, row.id),
      summary: row.summary,
      chars: row.chars,
    };
    if (options.public) delete view.contentUrl;
    return view;
  }
  const url = fileUrl(ctx, row);
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
