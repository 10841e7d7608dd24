import type { Insertable, Kysely } from "kysely";
import type { Database, MediaTable } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { conflict, invalidField, notFound } from "../errors.js";
import { servingOf } from "../files/file-types.js";
import { deleteMediaRows, normalizeAlt } from "../files/media-rows.js";
import { deleteStoredKeys, storageFailure } from "../files/stored-objects.js";

/**
 * One attachment as a request lists it: a media item by ID, or new Markdown text. Posts' input
 * schema produces these; declared here so attachments need not import posts.
 * @see spec § POST /api/posts (attachment input)
 */
export type AttachmentInput =
  | { type: "media"; mediaId: string; alt?: string | null | undefined }
  | { type: "text"; content: string; summary?: string | null | undefined };

/** A text attachment whose file is already stored, waiting for its row. */
export interface PreparedTextAttachment {
  row: Insertable<MediaTable>;
}

/** Attachment inputs with their text files written, in request order. */
export type PreparedAttachment =
  | PreparedTextAttachment
  | { mediaId: string; alt?: string | null | undefined };

/**
 * Writes the files of new text attachments before the database transaction (so a failed write
 * leaves no row pointing at nothing); the caller deletes `storedKeys` if the transaction fails.
 */
export async function prepareAttachments(
  ctx: EngineContext,
  inputs: AttachmentInput[],
): Promise<{ prepared: PreparedAttachment[]; storedKeys: string[] }> {
  const prepared: PreparedAttachment[] = [];
  const storedKeys: string[] = [];
  const now = ctx.clock.now();
  try {
    for (const input of inputs) {
      if (input.type === "media") {
        prepared.push({ mediaId: input.mediaId, alt: input.alt });
        continue;
      }
      const id = ctx.ids.generate("med");
      const key = `attachments/${id}.md`;
      const bytes = new TextEncoder().encode(input.content);
      if (ctx.storage) {
        await ctx.storage
          .put(key, bytes, {
            contentType: "text/markdown; charset=utf-8",
            contentDisposition: servingOf(key).contentDisposition,
          })
          .catch((err: unknown) => {
            throw storageFailure(ctx, err);
          });
        storedKeys.push(key);
      }
      prepared.push({
        row: {
          id,
          type: "text",
          media_kind: "text",
          mime_type: "text/markdown",
          original_name: `${id}.md`,
          size: bytes.byteLength,
          summary: input.summary ?? null,
          chars: [...input.content].length,
          text_content: input.content,
          storage_key: key,
          created_at: now,
          updated_at: now,
        },
      });
    }
  } catch (err) {
    await deleteStoredKeys(ctx, storedKeys);
    throw err;
  }
  return { prepared, storedKeys };
}

/**
 * Makes `prepared` the post's attachments, in order: new text attachments are inserted, media
 * items are claimed (404 when unknown, 409 when another post holds one), and former attachments
 * not in the list are deleted. Returns the storage keys to delete once the transaction commits,
 * and the kinds kept. Run it under the post's Thread lock (posts/thread-lock.ts).
 * @see spec § PUT /api/posts/:id rule 2
 */
export async function replaceAttachments(
  db: Kysely<Database>,
  input: { postId: string; prepared: PreparedAttachment[]; now: number },
): Promise<{ removedKeys: string[]; kinds: string[] }> {
  const existing = await db.selectFrom("media").selectAll().where("post_id", "=", input.postId).execute();
  const mediaIds = input.prepared.flatMap((item) => ("mediaId" in item ? [item.mediaId] : []));
  const twice = mediaIds.find((id, index) => mediaIds.indexOf(id) !== index);
  if (twice !== undefined) throw invalidField("attachments", `Media ${twice} is listed twice`);
  const kindOf = await claimMedia(db, { postId: input.postId, mediaIds });
  const kinds: string[] = [];
  for (const [position, item] of input.prepared.entries()) {
    if ("row" in item) {
      await db
        .insertInto("media")
        .values({ ...item.row, post_id: input.postId, position })
        .execute();
      kinds.push("text");
      continue;
    }
    kinds.push(kindOf.get(item.mediaId) as string);
    await db
      .updateTable("media")
      .set({
        position,
        ...(item.alt === undefined ? {} : { alt: normalizeAlt(item.alt), updated_at: input.now }),
      })
      .where("id", "=", item.mediaId)
      .execute();
  }
  const kept = new Set(mediaIds);
  const removedKeys = await deleteMediaRows(
    db,
    existing.filter((row) => !kept.has(row.id)),
  );
  return { removedKeys, kinds };
}

/**
 * Attaches each media item to the post unless another post holds it: one conditional UPDATE per
 * item (`WHERE post_id IS NULL OR post_id = the post`), so of two posts claiming one item at once
 * exactly one wins and the other sees the winner's row. Items are claimed in ID order, so two
 * posts claiming the same items in different orders cannot deadlock. Returns each item's kind.
 */
async function claimMedia(
  db: Kysely<Database>,
  input: { postId: string; mediaIds: string[] },
): Promise<Map<string, string>> {
  const kinds = new Map<string, string>();
  for (const mediaId of [...input.mediaIds].sort()) {
    const claimed = await db
      .updateTable("media")
      .set({ post_id: input.postId })
      .where("id", "=", mediaId)
      .where((eb) => eb.or([eb("post_id", "is", null), eb("post_id", "=", input.postId)]))
      .returning("media_kind")
      .executeTakeFirst();
    if (claimed) {
      kinds.set(mediaId, claimed.media_kind);
      continue;
    }
    const held = await db.selectFrom("media").select("id").where("id", "=", mediaId).executeTakeFirst();
    if (!held) throw notFound("media", mediaId);
    throw conflict(`Media ${mediaId} is already attached to another post`);
  }
  return kinds;
}

/**
 * After an attachment left a post outside a post update: renumbers the remaining attachments
 * 0..n-1 in their order and returns the kinds still attached.
 */
export async function closeAttachmentRanks(db: Kysely<Database>, postId: string): Promise<string[]> {
  const rest = await db
    .selectFrom("media")
    .select(["id", "media_kind"])
    .where("post_id", "=", postId)
    .orderBy("position")
    .orderBy("id")
    .execute();
  for (const [position, media] of rest.entries()) {
    await db.updateTable("media").set({ position }).where("id", "=", media.id).execute();
  }
  return rest.map((media) => media.media_kind);
}
