import type { EngineContext } from "../deps.js";
import { invalidField } from "../errors.js";
import { matchesSignature, signatureLength } from "./file-signature.js";
import type { FileType } from "./file-types.js";
import { type ImageSize, readImageSize } from "./image-size.js";
import { readLeadingBytes } from "./stored-file.js";
import { requireStorage } from "./stored-objects.js";

const headerBytes = 64 * 1024;
/** A JPEG's frame header can sit behind large EXIF, XMP or ICC segments. */
const jpegHeaderBytes = 1024 * 1024;

/**
 * Checks a stored file's leading bytes against its declared image, video or audio type (400 when
 * they do not match; the caller deletes the object) and, for an image without client-given
 * dimensions, reads them from the header. Reads a small range, never the whole file.
 * @see docs/media.md § Types
 */
export async function inspectStoredFile(
  ctx: EngineContext,
  input: {
    key: string;
    fileType: Pick<FileType, "mimeType" | "mediaKind">;
    field: string;
    needSize: boolean;
  },
): Promise<{ measured: ImageSize | null }> {
  const storage = requireStorage(ctx);
  const { mimeType, mediaKind } = input.fileType;
  if (mediaKind === "document") return { measured: null };
  const wantSize = mediaKind === "image" && input.needSize;
  const head = await readLeadingBytes(storage, input.key, wantSize ? headerBytes : signatureLength);
  if (!head) throw invalidField(input.field, "The file has not been uploaded");
  if (!matchesSignature(mimeType, head)) {
    throw invalidField(input.field, `The file's content is not ${mimeType}`);
  }
  if (!wantSize) return { measured: null };
  let measured = readImageSize(head);
  if (!measured && mimeType === "image/jpeg" && head.byteLength === headerBytes) {
    const more = await readLeadingBytes(storage, input.key, jpegHeaderBytes);
    measured = more ? readImageSize(more) : null;
  }
  return { measured };
}
