import * as z from "zod";
import type { ByteSource } from "../storage.js";

/**
 * One entry of a one-shot upload form, in the order it arrived: a text field, or a file with its
 * bytes (a stream, read once). The HTTP adapter makes these from `multipart/form-data`;
 * in-process callers can pass an array.
 */
export type UploadFormPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; body: ByteSource };

/** The form of a one-shot upload: any iterable or async iterable of {@link UploadFormPart}. */
export const uploadFormParam = z.custom<Iterable<UploadFormPart> | AsyncIterable<UploadFormPart>>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    (Symbol.asyncIterator in value || Symbol.iterator in value),
  "Expected the upload form's parts",
);

/** Lets go of a file part nobody reads, so its source can move on. */
export async function discardPart(part: UploadFormPart): Promise<void> {
  if (!("body" in part) || part.body instanceof Uint8Array) return;
  if (part.body instanceof ReadableStream) await part.body.cancel().catch(() => {});
  else await Promise.resolve(part.body[Symbol.asyncIterator]().return?.()).catch(() => {});
}
