import * as z from "zod";

/**
 * One entry of a one-shot upload form, in the order it arrived: a text field, or a file with its
 * bytes (a Web stream, read once). The HTTP adapter makes these from `multipart/form-data`;
 * in-process callers can pass an array.
 */
export type UploadFormPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; body: ReadableStream<Uint8Array> | Uint8Array };

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
  if ("body" in part && part.body instanceof ReadableStream) await part.body.cancel().catch(() => {});
}
