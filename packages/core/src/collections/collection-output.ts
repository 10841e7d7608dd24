import * as z from "zod";
import { idOf, named, unixTime } from "../shared/outputs.js";
import { smartCollectionListItemOutput } from "../smart-collections/smart-collection-output.js";

/** A collection. @see spec § Collection */
export const collectionOutput = z.object({
  id: idOf("col"),
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  sortOrder: z.enum(["newest", "oldest", "rating_desc"]),
  createdAt: unixTime,
  updatedAt: unixTime,
});

/** A collection in the list, with its figures for the caller. */
export const collectionListItemOutput = collectionOutput.extend({
  threadCount: z.number().int(),
  recentActivityAt: unixTime,
});

/** A directory entry; `id` and `position` are null for an unplaced collection or smart collection. */
export const directoryItemOutput = z.object({
  id: idOf("cdi").nullable(),
  type: z.enum(["collection", "smart_collection", "divider", "link"]),
  collectionId: idOf("col").nullable(),
  smartCollectionId: idOf("smc").nullable(),
  label: z.string().nullable(),
  url: z.string().nullable(),
  description: z.string().nullable(),
  position: z.string().nullable(),
  createdAt: unixTime,
  updatedAt: unixTime,
});

/** A stored directory item (placed: it has an ID and a position). */
export const placedDirectoryItemOutput = directoryItemOutput.extend({
  id: idOf("cdi"),
  position: z.string(),
});

/** `collections.list`: every collection and smart collection, and the directory in order. */
export const collectionsListOutput = z.object({
  collections: z.array(collectionListItemOutput),
  smartCollections: z.array(smartCollectionListItemOutput),
  directoryItems: z.array(directoryItemOutput),
});

/** `collections.checkSlug`. */
export const collectionSlugOutput = z.object({ slug: z.string(), available: z.boolean() });

// Shown once in the API reference, under these names.
named(collectionOutput, "Collection");
named(collectionListItemOutput, "CollectionListItem");
named(directoryItemOutput, "DirectoryEntry");
named(placedDirectoryItemOutput, "DirectoryItem");
