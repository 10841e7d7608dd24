import * as z from "zod";
import { idOf, unixTime } from "../shared/outputs.js";

/** `uploads.init`: the session and the transport to send the bytes with. @see docs/media.md */
export const uploadInitOutput = z.object({
  id: idOf("upl"),
  transport: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("relay"), method: z.literal("PUT"), url: z.string().optional() }),
    z.object({
      kind: z.literal("multipartRelay"),
      method: z.literal("PUT"),
      url: z.string().optional(),
      partSize: z.number().int(),
    }),
    z.object({
      kind: z.literal("put"),
      url: z.string(),
      method: z.literal("PUT"),
      headers: z.record(z.string(), z.string()),
      expiresAt: unixTime,
    }),
  ]),
});

/** `uploads.putPart`: the part stored, and its ETag. */
export const uploadPartOutput = z.object({ partNumber: z.number().int().min(1), etag: z.string() });
