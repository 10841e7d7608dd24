import { moveAddress } from "../custom-urls/addresses.js";
import { defineOperation } from "../operation.js";
import { checkSlugCandidate } from "../posts/post-content.js";
import { normalizeSelection } from "./selection.js";
import { checkSelectionTargets } from "./selection-targets.js";
import { smartCollectionOutput } from "./smart-collection-output.js";
import { findSmartCollection } from "./smart-collection-rows.js";
import { updateSmartCollectionInput } from "./smart-collection-schemas.js";
import { type SmartCollection, toSmartCollection } from "./smart-collection-view.js";

/**
 * Changes a smart collection; absent fields stay. `selection` replaces the conditions whole; a
 * new `slug` moves the address at once (the old one is free, no redirect), and navigation items
 * follow because they read the address on each list. @see spec § PUT /api/smart-collections/:id
 */
export const updateSmartCollection = defineOperation({
  id: "smartCollections.update",
  access: "owner",
  description: "Changes a smart collection's slug, title, description, conditions, order or layout.",
  hints: { idempotent: true },
  input: updateSmartCollectionInput,
  output: smartCollectionOutput,
  run: async (ctx, input): Promise<SmartCollection> => {
    if (input.slug !== undefined) checkSlugCandidate(input.slug);
    const selection = input.selection && normalizeSelection(input.selection);
    if (selection) await checkSelectionTargets(ctx.db, selection);
    const row = await ctx.db.transaction().execute(async (trx) => {
      await ctx.dialect.lockRow(trx, { table: "smart_collections", id: input.id });
      const current = await findSmartCollection(trx, input.id);
      if (input.slug !== undefined && input.slug !== current.slug) {
        await moveAddress(
          { db: trx },
          {
            from: current.slug,
            to: input.slug,
            ownerType: "smart_collection",
            ownerId: current.id,
            field: "slug",
          },
        );
      }
      const next = {
        ...current,
        slug: input.slug ?? current.slug,
        title: input.title ?? current.title,
        description: input.description === undefined ? current.description : input.description,
        selection: selection ? JSON.stringify(selection) : current.selection,
        sort_order: input.sortOrder ?? current.sort_order,
        layout: input.layout === undefined ? current.layout : input.layout,
        updated_at: ctx.clock.now(),
      };
      const { id, created_at, ...changes } = next;
      await trx.updateTable("smart_collections").set(changes).where("id", "=", id).execute();
      return next;
    });
    return toSmartCollection(row);
  },
});
