import * as z from "zod";
import { idOf, named, nextCursor, unixTime } from "../shared/outputs.js";
import { publicThreadOutput, threadOutput } from "../threads/thread-output.js";
import { selectionSchema } from "./smart-collection-schemas.js";

const sortOrder = z.enum(["newest", "oldest", "rating_desc"]);

/** A smart collection. @see spec § Smart collection */
export const smartCollectionOutput = z.object({
  id: idOf("smc"),
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  selection: selectionSchema,
  sortOrder,
  layout: z.enum(["list", "grid"]).nullable(),
  createdAt: unixTime,
  updatedAt: unixTime,
});

/** A smart collection in a list, with its figures for the caller. */
export const smartCollectionListItemOutput = smartCollectionOutput.extend({
  threadCount: z.number().int(),
  recentActivityAt: unixTime,
});

/** `smartCollections.list`. */
export const smartCollectionsListOutput = z.object({
  smartCollections: z.array(smartCollectionListItemOutput),
});

/** `smartCollections.preview`: Threads matching the selection, and all Threads, for the caller. */
export const previewOutput = z.object({ count: z.number().int(), baseline: z.number().int() });

/** `smartCollections.listThreads`. */
export const smartCollectionThreadsOutput = z.object({ threads: z.array(threadOutput), nextCursor });

/** `publicSmartCollections.listThreads`: the page for readers, with the layout in effect. */
export const publicSmartCollectionThreadsOutput = z.object({
  smartCollection: z.object({
    id: idOf("smc"),
    slug: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    sortOrder,
    layout: z.enum(["list", "grid"]),
  }),
  threads: z.array(publicThreadOutput),
  nextCursor,
});

// Shown once in the API reference, under these names.
named(smartCollectionOutput, "SmartCollection");
named(smartCollectionListItemOutput, "SmartCollectionListItem");
