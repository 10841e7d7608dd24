import { claimAddress } from "../custom-urls/addresses.js";
import { defineOperation } from "../operation.js";
import { checkSlugCandidate } from "../posts/post-content.js";
import { normalizeSelection } from "./selection.js";
import { checkSelectionTargets } from "./selection-targets.js";
import { smartCollectionOutput } from "./smart-collection-output.js";
import { createSmartCollectionInput } from "./smart-collection-schemas.js";
import { type SmartCollection, toSmartCollection } from "./smart-collection-view.js";

/**
 * Creates a smart collection at `slug`, claimed in the root namespace inside the insert's
 * transaction: a slug a post, collection or smart collection holds is 409, a reserved or malformed
 * one 400. @see spec § POST /api/smart-collections
 */
export const createSmartCollection = defineOperation({
  id: "smartCollections.create",
  access: "owner",
  description: "Creates a smart collection: Threads gathered by conditions, at its own address.",
  input: createSmartCollectionInput,
  output: smartCollectionOutput,
  run: async (ctx, input): Promise<SmartCollection> => {
    checkSlugCandidate(input.slug);
    const selection = normalizeSelection(input.selection ?? {});
    await checkSelectionTargets(ctx.db, selection);
    const now = ctx.clock.now();
    const row = {
      id: ctx.ids.generate("smc"),
      slug: input.slug,
      title: input.title,
      description: input.description ?? null,
      selection: JSON.stringify(selection),
      sort_order: input.sortOrder ?? "newest",
      layout: input.layout ?? null,
      created_at: now,
      updated_at: now,
    };
    await ctx.db.transaction().execute(async (trx) => {
      await claimAddress(
        { db: trx },
        { path: row.slug, ownerType: "smart_collection", ownerId: row.id, field: "slug" },
      );
      await trx.insertInto("smart_collections").values(row).execute();
    });
    return toSmartCollection(row);
  },
});
