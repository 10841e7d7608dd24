import { claimAddress } from "../custom-urls/addresses.js";
import { defineOperation } from "../operation.js";
import { collectionOutput } from "./collection-output.js";
import { checkCollectionSlug, findCollection } from "./collection-rows.js";
import { createCollectionInput } from "./collection-schemas.js";
import { toCollectionView } from "./collection-view.js";
import { placeCollection } from "./directory.js";

/**
 * Creates a collection, claims its slug in the shared address space (409 when a post, collection,
 * smart collection or custom URL holds it) and appends its directory item, in one transaction.
 * @see spec § POST /api/collections
 */
export const createCollection = defineOperation({
  id: "collections.create",
  access: "owner",
  description: "Creates a collection (slug, title, description, sortOrder) and appends it to the directory.",
  input: createCollectionInput,
  output: collectionOutput,
  run: async (ctx, input) => {
    checkCollectionSlug(input.slug);
    const id = ctx.ids.generate("col");
    const now = ctx.clock.now();
    const created = await ctx.db.transaction().execute(async (trx) => {
      const tx = { ...ctx, db: trx };
      await claimAddress(tx, { path: input.slug, ownerType: "collection", ownerId: id, field: "slug" });
      await trx
        .insertInto("collections")
        .values({
          id,
          slug: input.slug,
          title: input.title,
          description: input.description ?? null,
          sort_order: input.sortOrder,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await placeCollection(tx, { collectionId: id, now });
      return findCollection(trx, id);
    });
    if (!created) throw new Error(`Collection ${id} vanished inside its creation`);
    return toCollectionView(created);
  },
});
