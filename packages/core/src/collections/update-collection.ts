import type { Updateable } from "kysely";
import { moveAddress } from "../custom-urls/addresses.js";
import type { CollectionsTable } from "../db/schema.js";
import { defineOperation } from "../operation.js";
import { collectionOutput } from "./collection-output.js";
import { checkCollectionSlug, findCollection, lockCollection } from "./collection-rows.js";
import { updateCollectionInput } from "./collection-schemas.js";
import { toCollectionView } from "./collection-view.js";

/**
 * Partially updates a collection: omitted fields keep, `description: null` clears. A new slug
 * moves the address (409 when taken, the old one freed in the same transaction).
 * @see spec § PUT /api/collections/:id
 */
export const updateCollection = defineOperation({
  id: "collections.update",
  access: "owner",
  description: "Partially updates a collection: slug, title, description (null clears), sortOrder.",
  hints: { idempotent: true },
  input: updateCollectionInput,
  output: collectionOutput,
  run: async (ctx, input) => {
    if (input.slug !== undefined) checkCollectionSlug(input.slug);
    // The answer is read in the transaction: after its commit a concurrent delete could take the row.
    const updated = await ctx.db.transaction().execute(async (trx) => {
      const tx = { ...ctx, db: trx };
      const row = await lockCollection(tx, input.id);
      const changes: Updateable<CollectionsTable> = { updated_at: ctx.clock.now() };
      if (input.title !== undefined) changes.title = input.title;
      if (input.description !== undefined) changes.description = input.description;
      if (input.sortOrder !== undefined) changes.sort_order = input.sortOrder;
      if (input.slug !== undefined && input.slug !== row.slug) {
        await moveAddress(tx, {
          from: row.slug,
          to: input.slug,
          ownerType: "collection",
          ownerId: row.id,
          field: "slug",
        });
        changes.slug = input.slug;
      }
      await trx.updateTable("collections").set(changes).where("id", "=", row.id).execute();
      return findCollection(trx, input.id);
    });
    if (!updated) throw new Error(`Collection ${input.id} vanished inside its update`);
    return toCollectionView(updated);
  },
});
