import * as z from "zod";
import type { EngineContext } from "../deps.js";
import { invalidField } from "../errors.js";
import { deleteStoredKeys, requireStorage } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import { typeId } from "../shared/type-id.js";
import type { ByteSource } from "../storage.js";
import { matchesSignature, signatureLength } from "./file-signature.js";
import { forgetLateWrite } from "./put-upload-body.js";
import { posterKeyOf } from "./storage-keys.js";
import { readLeadingBytes, storeBody } from "./stored-file.js";
import {
  bodyParam,
  contentLengthParam,
  findOpenSession,
  throwClosed,
  touchSession,
} from "./upload-session.js";

/** Largest poster frame accepted. @see docs/media.md § Limits */
export const maxPosterBytes = 16 * 1024 * 1024;

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

/** 400 unless a declared poster type (parameters aside) is `image/webp`. */
export function checkPosterType(contentType: string | undefined): void {
  const essence = contentType?.split(";")[0]?.trim().toLowerCase();
  if (essence !== undefined && essence !== "" && essence !== "image/webp") {
    throw invalidField("poster", "A poster frame must be WebP (image/webp)");
  }
}

/** Stores a poster and checks that it is WebP; a poster that is not is deleted (400). */
export async function storePoster(
  ctx: EngineContext,
  input: { key: string; body: ByteSource; contentLength?: number | undefined },
): Promise<void> {
  if (input.contentLength !== undefined && input.contentLength > maxPosterBytes) {
    throw invalidField("poster", `A poster frame may be at most ${maxPosterBytes} bytes`);
  }
  await storeBody(ctx, {
    key: input.key,
    body: input.body,
    contentType: "image/webp",
    maxBytes: maxPosterBytes,
    field: "poster",
  });
  const head = await readLeadingBytes(requireStorage(ctx), input.key, signatureLength);
  if (!head || !matchesSignature("image/webp", head)) {
    await deleteStoredKeys(ctx, [input.key]);
    throw invalidField("poster", "A poster frame must be WebP (image/webp)");
  }
}
