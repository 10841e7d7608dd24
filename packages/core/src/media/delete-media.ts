import * as z from "zod";
import { closeAttachmentRanks } from "../attachments/save-attachments.js";
import { notFound } from "../errors.js";
import { deleteMediaRows } from "../files/media-rows.js";
import { deleteStoredKeys, requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { storeRootMediaKinds } from "../posts/thread-figures.js";
import { lockThreadOf } from "../posts/thread-lock.js";
import { successOutput } from "../shared/outputs.js";
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
  output: successOutput,
  run: async (ctx, input) => {
    requireStorage(ctx);
    const keys = await ctx.db.transaction().execute(async (trx) => {
      const read = () => trx.selectFrom("media").selectAll().where("id", "=", input.id).executeTakeFirst();
      // An attached item changes its post's attachments: lock that Thread first, then read again.
      const attachedTo = (await read())?.post_id;
      if (attachedTo) await lockThreadOf({ ...ctx, db: trx }, attachedTo);
      let row = await read();
      if (row?.post_id && row.post_id !== attachedTo) {
        // Attached meanwhile (it was free at the first read, so no other Thread is locked yet).
        await lockThreadOf({ ...ctx, db: trx }, row.post_id);
        row = await read();
      }
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
