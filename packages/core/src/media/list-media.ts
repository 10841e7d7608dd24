import { sql } from "kysely";
import * as z from "zod";
import { invalidField } from "../errors.js";
import { requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { decodeCursor, encodeCursor } from "../shared/cursor.js";
import { cursorParam, limitParam } from "../shared/list-params.js";
import { type MediaRecord, toMediaRecord } from "./media-view.js";

const order = "media.created";

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
  run: async (ctx, input): Promise<{ media: MediaRecord[]; nextCursor: string | null }> => {
    requireStorage(ctx);
    let query = ctx.db.selectFrom("media").selectAll();
    const prefix = input.mimePrefix?.trim().toLowerCase();
    if (prefix) query = query.where(sql<boolean>`substr(mime_type, 1, ${prefix.length}) = ${prefix}`);
    if (input.cursor) {
      const [createdAt, id] = decodeCursor(input.cursor, order, 2);
      if (typeof createdAt !== "number" || typeof id !== "string")
        throw invalidField("cursor", "Unreadable cursor");
      query = query.where((eb) =>
        eb.or([
          eb("created_at", "<", createdAt),
          eb.and([eb("created_at", "=", createdAt), eb("id", "<", id)]),
        ]),
      );
    }
    const rows = await query
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(input.limit + 1)
      .execute();
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    return {
      media: page.map((row) => toMediaRecord(ctx, row)),
      nextCursor:
        rows.length > input.limit && last
          ? encodeCursor({ order, keys: [Number(last.created_at), last.id] })
          : null,
    };
  },
});
