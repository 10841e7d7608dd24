import { releaseAddress } from "../custom-urls/addresses.js";
import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { findSmartCollection } from "./smart-collection-rows.js";
import { smartCollectionIdInput } from "./smart-collection-schemas.js";

/**
 * Deletes a smart collection and frees its address at once; Threads are untouched. Navigation
 * items pointing at it drop out of the navigation list. @see spec § DELETE /api/smart-collections/:id
 */
export const deleteSmartCollection = defineOperation({
  id: "smartCollections.delete",
  access: "owner",
  description: "Deletes a smart collection; its address stops working at once. Threads stay.",
  hints: { destructive: true, idempotent: true },
  input: smartCollectionIdInput,
  output: successOutput,
  run: async (ctx, input) => {
    await ctx.db.transaction().execute(async (trx) => {
      await ctx.dialect.lockRow(trx, { table: "smart_collections", id: input.id });
      const row = await findSmartCollection(trx, input.id);
      await releaseAddress(trx, row.slug);
      await trx.deleteFrom("smart_collections").where("id", "=", row.id).execute();
    });
    return { success: true as const };
  },
});
