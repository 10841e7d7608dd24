import * as z from "zod";
import { languageTag } from "../posts/post-schemas.js";
import { typeId } from "../shared/type-id.js";

/** A collection's own Thread order. @see spec § Collection */
export const collectionSortOrder = z.enum(["newest", "oldest", "rating_desc"]);
/** One collection Thread order. */
export type CollectionSortOrder = z.infer<typeof collectionSortOrder>;

/** Collection slug as sent: checked for its form by the operation (400 naming `slug`). */
const slugField = z.string().min(1).max(200);
const titleField = z.string().trim().min(1).max(120);
const descriptionField = z.string().max(500);

/** Input of `collections.list` (`GET /api/collections`). */
export const listCollectionsInput = z.object({
  view: z.enum(["compose"]).optional(),
  lang: languageTag.optional(),
});

/** `{ id }` of one collection. */
export const collectionIdInput = z.object({ id: typeId("col") });

/** Input of `collections.checkSlug` (`GET /api/collections/slug`). */
export const checkCollectionSlugInput = z.object({
  mode: z.enum(["check"]),
  slug: slugField,
  collectionId: typeId("col").optional(),
});

/** Input of `collections.create`. */
export const createCollectionInput = z.object({
  slug: slugField,
  title: titleField,
  description: descriptionField.nullable().optional(),
  sortOrder: collectionSortOrder.default("newest"),
});

/** Input of `collections.update`: every field optional; `description: null` clears. */
export const updateCollectionInput = z.object({
  id: typeId("col"),
  slug: slugField.optional(),
  title: titleField.optional(),
  description: descriptionField.nullable().optional(),
  sortOrder: collectionSortOrder.optional(),
});

/** `{ id, threadId }`: a collection and any post of a Thread (root or reply). */
export const collectionThreadInput = z.object({ id: typeId("col"), threadId: typeId("pst") });

/** Longest directory label, in characters after trimming. */
export const maxLabelLength = 60;
/** Longest link description (Markdown, stored as sent). */
export const maxLinkDescriptionLength = 2000;
const maxUrlLength = 2048;

/**
 * A directory link's address: a site-relative path (`/…`, not `//…`) or an absolute `http:`,
 * `https:` or `mailto:` URL; no spaces or control characters.
 */
export const directoryUrl = z
  .string()
  .trim()
  .min(1)
  .max(maxUrlLength)
  .refine((value) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    if (/[\s\u0000-\u001f\u007f]/.test(value)) return false;
    if (value.startsWith("/")) return !value.startsWith("//") && !value.startsWith("/\\");
    try {
      return ["http:", "https:", "mailto:"].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, "Expected a path starting with / or an absolute http:, https: or mailto: URL");

/**
 * A directory label: trimmed, then at most 60 characters (zod counts code points, so an emoji is
 * one). It was checked in UTF-16 units after a 200-unit cap on the untrimmed text: 31 emoji, or
 * a short label after 195 spaces, were refused.
 */
const labelField = z.string().trim().max(maxLabelLength, `At most ${maxLabelLength} characters`);

/**
 * Input of `directoryItems.create`: a divider or a link (collections and smart collections are
 * placed by moving them, so `collection` and `smart_collection` are refused). One object rather
 * than a union, so the input converts to a plain JSON Schema object; the operation checks which
 * fields each type needs.
 */
export const createDirectoryItemInput = z.object({
  type: z.enum(["divider", "link"]),
  label: labelField.nullable().optional(),
  url: directoryUrl.optional(),
  description: z.string().max(maxLinkDescriptionLength).nullable().optional(),
});

/** Input of `directoryItems.update`: partial `label`, `url`, `description`. */
export const updateDirectoryItemInput = z.object({
  id: typeId("cdi"),
  label: labelField.nullable().optional(),
  url: directoryUrl.optional(),
  description: z.string().max(maxLinkDescriptionLength).nullable().optional(),
});

/** A directory entry to move: an item, or a collection / smart collection (placed if unplaced). */
const movableId = z.union([typeId("cdi"), typeId("col"), typeId("smc")]);

/** Input of `directoryItems.move`. */
export const moveDirectoryItemInput = z.object({
  id: movableId,
  after: typeId("cdi").nullable().optional(),
  before: typeId("cdi").nullable().optional(),
});

/** `{ id }` of one directory item. */
export const directoryItemIdInput = z.object({ id: typeId("cdi") });
