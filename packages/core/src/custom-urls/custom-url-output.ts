import * as z from "zod";
import { collectionOutput } from "../collections/collection-output.js";
import { publicPostOutput } from "../posts/post-output.js";
import { idOf, named, nextCursor, unixTime } from "../shared/outputs.js";
import { smartCollectionOutput } from "../smart-collections/smart-collection-output.js";

/** A custom URL: an alias of a post or collection, or a redirect. @see spec § Custom URL */
export const customUrlOutput = z.object({
  id: idOf("pth"),
  path: z.string().startsWith("/"),
  targetType: z.enum(["post", "collection", "redirect"]),
  targetId: z.string().nullable(),
  toPath: z.string().nullable(),
  redirectType: z.union([z.literal(301), z.literal(302)]).nullable(),
  createdAt: unixTime,
});

/** A page of custom URLs, newest first. */
export const customUrlPageOutput = z.object({ customUrls: z.array(customUrlOutput), nextCursor });

/** `addresses.resolve`: what a public path is. @see docs/custom-urls.md § Resolving */
export const resolutionOutput = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("post"), path: z.string(), canonicalPath: z.string(), post: publicPostOutput }),
  z.object({
    kind: z.literal("collection"),
    path: z.string(),
    canonicalPath: z.string(),
    collection: collectionOutput,
  }),
  z.object({
    kind: z.literal("smart_collection"),
    path: z.string(),
    canonicalPath: z.string(),
    smartCollection: smartCollectionOutput,
  }),
  z.object({
    kind: z.literal("redirect"),
    path: z.string(),
    location: z.string(),
    status: z.union([z.literal(301), z.literal(302)]),
    reason: z.enum(["redirect", "canonical"]),
  }),
  z.object({ kind: z.literal("not_found"), path: z.string() }),
]);

// Shown once in the API reference, under these names.
named(customUrlOutput, "CustomUrl");
