import * as z from "zod";
import { requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { typeId } from "../shared/type-id.js";
import { closeSession, discardSessionUploads, findOpenSession } from "./upload-session.js";

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
  output: successOutput,
  run: async (ctx, input) => {
    requireStorage(ctx);
    const session = await findOpenSession(ctx, input.id);
    await closeSession(ctx, { id: session.id, to: "aborted" });
    await discardSessionUploads(ctx, session);
    return { success: true as const };
  },
});
