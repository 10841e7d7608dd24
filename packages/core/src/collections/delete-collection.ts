import { releaseAddress } from "../custom-urls/addresses.js";
import { removeAliasesOf } from "../custom-urls/aliases.js";
import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { lockCollection } from "./collection-rows.js";
import { collectionIdInput } from "./collection-schemas.js";
import { lockDirectory } from "./directory.js";

/**
 * Deletes a collection: its address and its custom URL aliases are freed (redirects stay); its
 * memberships, figures and directory item go; its Threads stay. @see spec § DELETE /api/collections/:id
 */
export const deleteCollection = defineOperation({
  id: "collections.delete",
  access: "owner",
  description: "Deletes a collection and its directory item; its Threads remain.",
  hints: { destructive: true, idempotent: true },
  input: collectionIdInput,
  output: successOutput,
  run: async (ctx, input) => {
    await ctx.db.transaction().execute(async (trx) => {
      const tx = { ...ctx, db: trx };
      const row = await lockCollection(tx, input.id);
      await releaseAddress(trx, row.slug);
      await removeAliasesOf(trx, { targetType: "collection", targetIds: [row.id] });
      await trx.deleteFrom("collection_threads").where("collection_id", "=", row.id).execute();
      await trx.deleteFrom("collection_figures").where("collection_id", "=", row.id).execute();
      await lockDirectory(tx);
      await trx.deleteFrom("directory_items").where("collection_id", "=", row.id).execute();
      await trx.deleteFrom("collections").where("id", "=", row.id).execute();
    });
    return { success: true as const };
  },
});
