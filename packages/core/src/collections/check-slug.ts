import { isAddressFree } from "../custom-urls/addresses.js";
import { defineOperation } from "../operation.js";
import { collectionSlugOutput } from "./collection-output.js";
import { checkCollectionSlug } from "./collection-rows.js";
import { checkCollectionSlugInput } from "./collection-schemas.js";

/**
 * Whether a slug is free in the site's one address space (posts, collections, smart collections
 * and custom URLs share it); `collectionId` counts that collection's own slug as free. An invalid
 * or reserved slug is 400. @see spec § GET /api/collections/slug
 */
export const checkCollectionSlugOperation = defineOperation({
  id: "collections.checkSlug",
  access: "owner",
  description: "Checks whether a slug is free for a collection.",
  hints: { readOnly: true },
  input: checkCollectionSlugInput,
  output: collectionSlugOutput,
  run: async (ctx, input) => {
    checkCollectionSlug(input.slug);
    return { slug: input.slug, available: await isAddressFree(ctx.db, input.slug, input.collectionId) };
  },
});
