import * as z from "zod";
import { deleteStoredKeys, requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import { abortMultipart } from "./cleanup-expired-uploads.js";
import { findOpenSession, sessionKeys, throwClosed } from "./upload-session.js";

/**
 * Abandons an open session: its multipart upload is aborted and any bytes sent are deleted.
 * Answers ok-body; a completed or aborted session is 409, an expired one 400.
 * @see spec § Uploads (`POST /api/uploads/:id/abort`), § Upload session
 */
export const abortUpload = defineOperation({
  id: "uploads.abort",
  access: "owner",
  description: "Abandons an upload session and deletes what it stored.",
  hints: { destructive: true, idempotent: true },
  input: z.object({ id: typeId("upl") }),
  run: async (ctx, input) => {
    requireStorage(ctx);
    const session = await findOpenSession(ctx, input.id);
    const now = ctx.clock.now();
    const claimed = await ctx.db
      .updateTable("upload_sessions")
      .set({ state: "aborted", updated_at: now })
      .where("id", "=", session.id)
      .where("state", "=", "open")
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) await throwClosed(ctx, session.id);
    await ctx.db.deleteFrom("upload_parts").where("session_id", "=", session.id).execute();
    await abortMultipart(ctx, session.storage_key, session.multipart_upload_id);
    await deleteStoredKeys(ctx, sessionKeys(session));
    return { success: true as const };
  },
});
