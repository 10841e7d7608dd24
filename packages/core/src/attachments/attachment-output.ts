import * as z from "zod";
import { idOf, named } from "../shared/outputs.js";

const mediaAttachment = z.object({
  type: z.literal("media"),
  id: idOf("med"),
  url: z.string(),
  previewUrl: z.string(),
  posterUrl: z.string().nullable(),
  alt: z.string().nullable(),
  blurhash: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  durationSeconds: z.number().nullable(),
  mimeType: z.string(),
  originalName: z.string(),
  size: z.number().int(),
  summary: z.string().nullable(),
  chars: z.number().int().nullable(),
});

const textAttachment = z.object({
  type: z.literal("text"),
  id: idOf("med"),
  url: z.string().optional(),
  contentFormat: z.literal("markdown"),
  /** Left out of public posts: it needs a session or token. */
  contentUrl: z.string().optional(),
  summary: z.string().nullable(),
  chars: z.number().int().nullable(),
});

/** An attachment object on a post. @see spec § Attachment objects */
export const attachmentOutput = z.discriminatedUnion("type", [mediaAttachment, textAttachment]);

/** `attachments.getContent`: a text attachment with its Markdown. */
export const attachmentContentOutput = z.object({
  id: idOf("med"),
  type: z.literal("text"),
  contentFormat: z.literal("markdown"),
  content: z.string(),
  summary: z.string().nullable(),
  chars: z.number().int().nullable(),
});

// Shown once in the API reference, under these names.
named(attachmentOutput, "Attachment");
