import { sql } from "kysely";
import * as z from "zod";
import type { MediaRow } from "../files/media-rows.js";
import { requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { type KeysetOrder, pageByKeys } from "../pagination/keyset.js";
import { cursorParam, limitParam } from "../shared/list-params.js";
import { mediaPageOutput } from "./media-output.js";
import { type MediaRecord, toMediaRecord } from "./media-view.js";

/** Newest first: `createdAt`, then ID. */
const order: KeysetOrder<MediaRow> = {
  name: "media.created",
  direction: "desc",
  keys: [
    { column: "created_at", type: "integer" },
    { column: "id", type: "string" },
  ],
};

/** Input of `media.list`. @see spec § GET /api/media, § Limits */
export const listMediaInput = z.object({
  limit: limitParam({ max: 200, default: 50 }),
  mimePrefix: z.string().max(100).optional(),
  cursor: cursorParam,
});

/**
 * Every media record, uploaded files and text attachments alike, newest first (`createdAt`, then
 * ID), one keyset page at a time; `mimePrefix` (e.g. `image/`) keeps the types that start with it.
 * @see spec § GET /api/media, § Pagination
 */
export const listMedia = defineOperation({
  id: "media.list",
  access: "owner",
  description: "Lists uploaded files and text attachments, newest first, one page at a time.",
  hints: { readOnly: true },
  input: listMediaInput,
  output: mediaPageOutput,
  run: async (ctx, input): Promise<{ media: MediaRecord[]; nextCursor: string | null }> => {
    requireStorage(ctx);
    let query = ctx.db.selectFrom("media").selectAll();
    const prefix = input.mimePrefix?.trim().toLowerCase();
    if (prefix) query = query.where(sql<boolean>`substr(mime_type, 1, ${prefix.length}) = ${prefix}`);
    const { rows, nextCursor } = await pageByKeys(query, order, input);
    return { media: rows.map((row) => toMediaRecord(ctx, row)), nextCursor };
  },
});
