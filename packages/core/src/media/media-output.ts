import * as z from "zod";
import { idOf, named, nextCursor, unixTime } from "../shared/outputs.js";

const base = {
  id: idOf("med"),
  postId: idOf("pst").nullable(),
  mediaKind: z.enum(["image", "video", "audio", "text", "document"]),
  mimeType: z.string(),
  originalName: z.string(),
  size: z.number().int(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  durationSeconds: z.number().nullable(),
  alt: z.string().nullable(),
  blurhash: z.string().nullable(),
  waveform: z.string().nullable(),
  summary: z.string().nullable(),
  chars: z.number().int().nullable(),
  createdAt: unixTime,
  updatedAt: unixTime,
};

/** A media record: an uploaded file or a text attachment. @see spec § Media record */
export const mediaOutput = z.discriminatedUnion("type", [
  z.object({
    ...base,
    type: z.literal("media"),
    url: z.string(),
    previewUrl: z.string(),
    posterUrl: z.string().nullable(),
  }),
  z.object({
    ...base,
    type: z.literal("text"),
    url: z.string().optional(),
    contentFormat: z.literal("markdown"),
    contentUrl: z.string().optional(),
  }),
]);

/** A page of media records, newest first. */
export const mediaPageOutput = z.object({ media: z.array(mediaOutput), nextCursor });

// Shown once in the API reference, under these names.
named(mediaOutput, "Media");
named(mediaPageOutput, "MediaPage");
