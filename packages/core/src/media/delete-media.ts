import * as z from "zod";
import { closeAttachmentRanks } from "../attachments/save-attachments.js";
import { notFound } from "../errors.js";
import { deleteMediaRows } from "../files/media-rows.js";
import { deleteStoredKeys, requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { storeRootMediaKinds } from "../posts/thread-figures.js";
import { typeId } from "../shared/type-id.js";

/**
 * Deletes a media record and its stored objects (file, poster, preview). An attached item leaves
 * its post: the remaining attachments close ranks and a Thread root's media kinds are recomputed.
 * The post's `updatedAt` does not move. Answers ok-body. @see spec § DELETE /api/media/:id
 */
export const deleteMedia = defineOperation({
  id: "media.delete",
  access: "owner",
  description: "Deletes a media item and its stored files.",
  hints: { destructive: true, idempotent: true },
  input: z.object({ id: typeId("med") }),
  run: async (ctx, input) => {
    requireStorage(ctx);
    const keys = await ctx.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom("media").selectAll().where("id", "=", input.id).executeTakeFirst();
      if (!row) throw notFound("media", input.id);
      const keys = await deleteMediaRows(trx, [row]);
      if (row.post_id !== null) {
        await storeRootMediaKinds(trx, row.post_id, await closeAttachmentRanks(trx, row.post_id));
      }
      return keys;
    });
    await deleteStoredKeys(ctx, keys);
    return { success: true as const };
  },
});
