import * as z from "zod";
import { notFound } from "../errors.js";
import { requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import { mediaOutput } from "./media-output.js";
import { toMediaRecord } from "./media-view.js";

/** One media record. @see spec § GET /api/media/:id */
export const getMedia = defineOperation({
  id: "media.get",
  access: "owner",
  description: "Reads one media record.",
  hints: { readOnly: true },
  input: z.object({ id: typeId("med") }),
  output: mediaOutput,
  run: async (ctx, input) => {
    requireStorage(ctx);
    const row = await ctx.db.selectFrom("media").selectAll().where("id", "=", input.id).executeTakeFirst();
    if (!row) throw notFound("media", input.id);
    return toMediaRecord(ctx, row);
  },
});
