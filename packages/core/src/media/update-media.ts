import * as z from "zod";
import { notFound } from "../errors.js";
import { normalizeAlt } from "../files/media-rows.js";
import { requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import { mediaOutput } from "./media-output.js";
import { toMediaRecord } from "./media-view.js";

/**
 * Sets a media item's alt text: trimmed, at most 500 characters; empty (or null) clears it, and the
 * record then carries null. 200 with the media record. @see spec § PUT /api/media/:id
 */
export const updateMedia = defineOperation({
  id: "media.update",
  access: "owner",
  description: "Sets or clears a media item's alt text.",
  hints: { idempotent: true },
  input: z.object({ id: typeId("med"), alt: z.string().trim().max(500).nullable() }),
  output: mediaOutput,
  run: async (ctx, input) => {
    requireStorage(ctx);
    // One statement that answers the row it wrote: a second read could find it deleted meanwhile.
    const row = await ctx.db
      .updateTable("media")
      .set({ alt: normalizeAlt(input.alt), updated_at: ctx.clock.now() })
      .where("id", "=", input.id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound("media", input.id);
    return toMediaRecord(ctx, row);
  },
});
