import { ownerCaller } from "../caller.js";
import type { EngineContext } from "../deps.js";
import { EngineError, invalidField } from "../errors.js";
import { deleteMedia } from "../media/delete-media.js";
import { uploadMedia } from "../media/upload-media.js";
import { execute } from "../operation.js";
import { createPost } from "../posts/create-post.js";
import { getPost } from "../posts/get-post.js";
import { updatePost } from "../posts/update-post.js";
import type { BotApi } from "./bot-api.js";
import { entitiesToMarkdown } from "./entities.js";
import type { MessagePayload } from "./telegram-schemas.js";

/** Largest file the Bot API lets a bot download (https://core.telegram.org/bots/api#getfile). */
export const maxBotFileBytes = 20 * 1024 * 1024;
/** How long an album's writer holds it before another may take over, in seconds. */
const albumLeaseSeconds = 120;

/** The file a media message carries, as the upload path needs it. */
interface MessageFile {
  fileId: string;
  filename: string;
  contentType: string | undefined;
  size: number | undefined;
}

/** The file of a photo (its largest size), video or document message; null for other messages. */
export function fileOf(message: MessagePayload): MessageFile | null {
  if (message.photo && message.photo.length > 0) {
    const largest = message.photo.reduce((best, size) =>
      (size.width ?? 0) * (size.height ?? 0) >= (best.width ?? 0) * (best.height ?? 0) ? size : best,
    );
    return {
      fileId: largest.file_id,
      filename: `photo-${message.message_id}.jpg`,
      contentType: "image/jpeg",
      size: largest.file_size,
    };
  }
  const item = message.video ?? message.document;
  if (item) {
    const fallback = message.video ? `video-${message.message_id}.mp4` : `document-${message.message_id}`;
    return {
      fileId: item.file_id,
      filename: item.file_name?.trim() || fallback,
      contentType: item.mime_type,
      size: item.file_size,
    };
  }
  return null;
}

/** The Markdown of a message's text or caption, with its entities; null when it has none. */
export function markdownOf(message: MessagePayload): string | null {
  const text = message.text ?? message.caption;
  if (text === undefined || text.trim() === "") return null;
  const markdown = entitiesToMarkdown(
    text,
    message.text !== undefined ? message.entities : message.caption_entities,
  );
  return markdown === "" ? null : markdown;
}

/**
 * Publishes a bound chat's message as a note: its text, or its file uploaded through the one-shot
 * upload path (`media.upload`: the same type checks and limits) with the caption as the body. A
 * message of an album (`media_group_id`) joins the album's post: the first one creates it, later
 * ones add their file (and the caption, when the post has no body yet) under the album's lease.
 * Answers the post's ID and whether it was created or added to.
 */
export async function publishMessage(
  ctx: EngineContext,
  api: BotApi,
  message: MessagePayload,
): Promise<{ postId: string; created: boolean }> {
  const file = fileOf(message);
  const markdown = markdownOf(message);
  if (!file) {
    const post = await execute(ctx, createPost, { format: "note", bodyMarkdown: markdown }, ownerCaller);
    return { postId: post.id, created: true };
  }
  if (message.media_group_id === undefined) {
    const mediaId = await uploadFile(ctx, api, file);
    const postId = await withMedia(ctx, mediaId, () =>
      execute(
        ctx,
        createPost,
        { format: "note", bodyMarkdown: markdown, attachments: [{ type: "media", mediaId }] },
        ownerCaller,
      ),
    );
    return { postId, created: true };
  }
  return joinAlbum(ctx, api, message, file, markdown);
}

/** Runs a post write that attaches `mediaId`; deletes the media again when the write fails. */
async function withMedia(
  ctx: EngineContext,
  mediaId: string,
  write: () => Promise<{ id: string }>,
): Promise<string> {
  try {
    return (await write()).id;
  } catch (err) {
    await execute(ctx, deleteMedia, { id: mediaId }, ownerCaller).catch(() => {});
    throw err;
  }
}

async function uploadFile(ctx: EngineContext, api: BotApi, file: MessageFile): Promise<string> {
  if (file.size !== undefined && file.size > maxBotFileBytes) {
    throw invalidField(
      "file",
      `Telegram lets bots download files of up to 20 MB; this one has ${file.size} bytes`,
    );
  }
  const info = await api.getFile(file.fileId);
  if (!info.file_path) throw new EngineError("EXTERNAL_SERVICE_ERROR", "Telegram gave no path for the file");
  const download = await api.download(info.file_path);
  const media = await execute(
    ctx,
    uploadMedia,
    { file: download.body, filename: file.filename, contentType: file.contentType },
    ownerCaller,
  );
  return media.id;
}

/**
 * One message of an album. The album's row is the lock: whoever inserts it (or takes it over once
 * its lease has run out) holds it until its write is done; a message that finds it held answers
 * 409 so that Telegram delivers it again later (the webhook asks for one delivery at a time, so
 * this is rare).
 */
async function joinAlbum(
  ctx: EngineContext,
  api: BotApi,
  message: MessagePayload,
  file: MessageFile,
  markdown: string | null,
): Promise<{ postId: string; created: boolean }> {
  const key = `${message.chat.id}:${message.media_group_id}`;
  const now = ctx.clock.now();
  const inserted = await ctx.db
    .insertInto("telegram_albums")
    .values({ album_key: key, post_id: null, busy_until: now + albumLeaseSeconds, created_at: now })
    .onConflict((oc) => oc.column("album_key").doNothing())
    .executeTakeFirst();
  let held = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
  if (!held) {
    const taken = await ctx.db
      .updateTable("telegram_albums")
      .set({ busy_until: now + albumLeaseSeconds })
      .where("album_key", "=", key)
      .where((eb) => eb.or([eb("busy_until", "is", null), eb("busy_until", "<=", now)]))
      .executeTakeFirst();
    held = Number(taken.numUpdatedRows) > 0;
  }
  if (!held)
    throw new EngineError("CONFLICT", "Another message of this album is being published; deliver it again");
  try {
    const album = await ctx.db
      .selectFrom("telegram_albums")
      .select("post_id")
      .where("album_key", "=", key)
      .executeTakeFirstOrThrow();
    const existing = album.post_id
      ? await execute(ctx, getPost, { id: album.post_id, content: "markdown" }, ownerCaller).catch((err) => {
          if (err instanceof EngineError && err.code === "NOT_FOUND") return null;
          throw err;
        })
      : null;
    const mediaId = await uploadFile(ctx, api, file);
    let postId: string;
    let created: boolean;
    if (existing) {
      const attachments = [
        ...(existing.attachments as { type: string; id: string; alt?: string | null }[]).map(keepAttachment),
        { type: "media" as const, mediaId },
      ];
      const bodyMissing = !existing.bodyMarkdown;
      postId = await withMedia(ctx, mediaId, () =>
        execute(
          ctx,
          updatePost,
          { id: existing.id, attachments, ...(bodyMissing && markdown ? { bodyMarkdown: markdown } : {}) },
          ownerCaller,
        ),
      );
      created = false;
    } else {
      postId = await withMedia(ctx, mediaId, () =>
        execute(
          ctx,
          createPost,
          { format: "note", bodyMarkdown: markdown, attachments: [{ type: "media", mediaId }] },
          ownerCaller,
        ),
      );
      created = true;
    }
    await ctx.db
      .updateTable("telegram_albums")
      .set({ post_id: postId, busy_until: null })
      .where("album_key", "=", key)
      .execute();
    return { postId, created };
  } catch (err) {
    await ctx.db
      .updateTable("telegram_albums")
      .set({ busy_until: null })
      .where("album_key", "=", key)
      .execute();
    throw err;
  }
}

/**
 * An attachment the post has, as posts.update takes it back (attachments are replaced in order):
 * by its ID, which keeps a text attachment's stored content as it is.
 */
function keepAttachment(attachment: { type: string; id: string; alt?: string | null }) {
  return {
    type: "media" as const,
    mediaId: attachment.id,
    alt: attachment.type === "media" ? (attachment.alt ?? null) : null,
  };
}
