import type { EngineContext } from "../deps.js";
import { invalidField } from "../errors.js";
import type { ByteSource } from "../storage.js";
import { matchesSignature, signatureLength } from "./file-signature.js";
import { readLeadingBytes, storeBody } from "./stored-file.js";
import { deleteStoredKeys, requireStorage } from "./stored-objects.js";

/** Largest poster frame accepted. @see docs/media.md § Limits */
export const maxPosterBytes = 16 * 1024 * 1024;

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
