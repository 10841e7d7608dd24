import * as z from "zod";
import { mediaKinds } from "../files/media-kinds.js";
import { languageTag, postFormat } from "../posts/post-schemas.js";
import { contentParam, cursorParam, limitParam } from "../shared/list-params.js";
import { typeId } from "../shared/type-id.js";

/** How a smart collection orders its Threads. @see spec § Smart collection */
export const smartCollectionSortOrder = z.enum(["newest", "oldest", "rating_desc"]);
/** One smart collection order. */
export type SmartCollectionSortOrder = z.infer<typeof smartCollectionSortOrder>;

/** `list`, `grid`, or null to follow the site's archive layout. */
export const smartCollectionLayout = z.enum(["list", "grid"]).nullable();

/**
 * The conditions of a smart collection, combined with AND; an absent key is no condition. A key
 * this schema does not know is a 400 (not ignored as request fields are): a misspelt condition
 * would otherwise widen the collection to every Thread without a word.
 * @see spec § Smart collection (selection), docs/smart-collections.md § Selection
 */
export const selectionSchema = z.strictObject({
  collection: z.array(typeId("col")).length(1, "Name exactly one collection").optional(),
  format: postFormat.optional(),
  title: z.boolean().optional(),
  year: z.number().int().min(1971).max(9999).optional(),
  media: z
    .union([
      z.enum(["any", "none"]),
      z
        .array(z.enum(mediaKinds))
        .min(1)
        .max(mediaKinds.length * 4),
    ])
    .optional(),
  replies: z.boolean().optional(),
  visibility: z.enum(["public", "featured", "latest_hidden"]).optional(),
});

/** A smart collection's conditions. */
export type Selection = z.output<typeof selectionSchema>;

const slugField = z.string().min(1).max(200);
const titleField = z.string().trim().min(1).max(120);
const descriptionField = z.string().max(500).nullable();

/** Input of `smartCollections.create`. */
export const createSmartCollectionInput = z.object({
  slug: slugField,
  title: titleField,
  description: descriptionField.optional(),
  selection: selectionSchema.optional(),
  sortOrder: smartCollectionSortOrder.optional(),
  layout: smartCollectionLayout.optional(),
});
/** Parsed input of `smartCollections.create`. */
export type CreateSmartCollectionInput = z.output<typeof createSmartCollectionInput>;

/** Input of `smartCollections.update`: every field optional; `selection` replaces the conditions. */
export const updateSmartCollectionInput = createSmartCollectionInput.partial().extend({
  id: typeId("smc"),
});
/** Parsed input of `smartCollections.update`. */
export type UpdateSmartCollectionInput = z.output<typeof updateSmartCollectionInput>;

/** `{ id }` of one smart collection. */
export const smartCollectionIdInput = z.object({ id: typeId("smc") });

/** Input of `smartCollections.list`: `lang` counts only Threads in that language. */
export const listSmartCollectionsInput = z.object({ lang: languageTag.optional() });

/** Input of `smartCollections.preview`. */
export const previewSelectionInput = z.object({
  selection: selectionSchema.optional(),
  lang: languageTag.optional(),
});

/** Input of `smartCollections.slug`. @see spec § GET /api/smart-collections/slug */
export const smartCollectionSlugInput = z.object({
  mode: z.enum(["suggest", "check"]),
  title: z.string().max(1000).optional(),
  slug: z.string().max(1000).optional(),
  smartCollectionId: typeId("smc").optional(),
});

const threadPageFields = {
  fold: z.boolean().optional(),
  content: contentParam,
  cursor: cursorParam,
  limit: limitParam({ max: 100, default: 20 }),
  lang: languageTag.optional(),
};

/** Input of `smartCollections.listThreads`: one page of the gathered Threads, in the collection's order. */
export const listSmartCollectionThreadsInput = z.object({ id: typeId("smc"), ...threadPageFields });

/** Input of `publicSmartCollections.listThreads`: the same, by slug, for readers. */
export const listPublicSmartCollectionThreadsInput = z.object({
  slug: z.string().min(1).max(1000),
  ...threadPageFields,
});
