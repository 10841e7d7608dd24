import * as z from "zod";
import { invalidField } from "../errors.js";
import { checkPosterType, storePoster } from "../files/poster-frame.js";
import { posterKeyOf } from "../files/storage-keys.js";
import { requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import {
  bodyParam,
  contentLengthParam,
  findOpenSession,
  forgetLateWrite,
  throwClosed,
  touchSession,
} from "./upload-session.js";

/**
 * The poster frame of a video upload: WebP bytes only (a declared type other than `image/webp`, or
 * bytes that are not WebP, are a 400 and nothing is kept). Any transport; sending again replaces it.
 * Answers nothing (HTTP 204). @see spec § Uploads (`PUT /api/uploads/:id/poster`)
 */
export const putUploadPoster = defineOperation({
  id: "uploads.putPoster",
  access: "owner",
  description: "Sends the WebP poster frame of a video upload.",
  hints: { idempotent: true },
  input: z.object({
    id: typeId("upl"),
    body: bodyParam,
    contentType: z.string().max(255).optional(),
    contentLength: contentLengthParam,
  }),
  run: async (ctx, input) => {
    requireStorage(ctx);
    const session = await findOpenSession(ctx, input.id);
    if (session.media_kind !== "video") throw invalidField("poster", "Only a video has a poster frame");
    checkPosterType(input.contentType);
    const key = posterKeyOf(session.storage_key);
    await storePoster(ctx, { key, body: input.body, contentLength: input.contentLength });
    if (
      !(await touchSession(ctx.db, { id: session.id, now: ctx.clock.now(), changes: { poster_key: key } }))
    ) {
      await forgetLateWrite(ctx, session.id, [key]);
      await throwClosed(ctx, session.id);
    }
    return null;
  },
});
