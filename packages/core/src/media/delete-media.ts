import type { Kysely } from "kysely";
import * as z from "zod";
import { mediaKindBits } from "../attachments/media-kinds.js";
import { deleteStoredKeys, storedKeysOf } from "../attachments/save-attachments.js";
import type { Database } from "../db/schema.js";
import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import { requireStorage } from "../uploads/stored-file.js";

/**
 * Deletes a media record and its stored objects (file, poster, preview). An attached item leaves
 * its post: the remaining attachments close ranks and a Thread root's media kinds are recomputed.
 * The post's `updatedAt` does not move. Answers ok-body. @see spec § DELETE /api/media/:id
 */
export const deleteMedia = defineOperation({
  id: "media.delete",
  access: "owner",
  description: "Deletes a media item and its stored files.",
  hints: { destructive: true },
  input: z.object({ id: typeId("med") }),
  run: async (ctx, input) => {
    requireStorage(ctx);
    const keys = await ctx.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom("media").selectAll().where("id", "=", input.id).executeTakeFirst();
      if (!row) throw notFound("media", input.id);
      await trx.deleteFrom("media").where("id", "=", input.id).execute();
      if (row.post_id !== null) await refreshPostAttachments(trx, row.post_id);
      return storedKeysOf(row);
    });
    await deleteStoredKeys(ctx, keys);
    return { success: true as const };
  },
});

/**
 * After an attachment left a post outside a post update: renumbers the remaining attachments
 * 0..n-1 in their order and, on a Thread root, stores the kinds still attached (the Thread list's
 * `media` filter reads them).
 */
export async function refreshPostAttachments(db: Kysely<Database>, postId: string): Promise<void> {
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
  await db
    .updateTable("posts")
    .set({ media_kinds: mediaKindBits(rest.map((media) => media.media_kind)) })
    .where("id", "=", postId)
    .whereRef("id", "=", "thread_id")
    .execute();
}
