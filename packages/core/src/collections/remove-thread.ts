import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { collectionThreadInput } from "./collection-schemas.js";
import { refreshCollectionFigures } from "./memberships.js";
import { withMembership } from "./thread-membership.js";

/**
 * Takes a whole Thread out of a collection (root or reply ID). A Thread that is not in it changes
 * nothing and answers ok-body; an unknown post or collection is 404.
 * @see spec § DELETE /api/collections/:id/threads/:threadId
 */
export const removeThread = defineOperation({
  id: "collections.removeThread",
  access: "owner",
  description: "Removes a whole Thread (root or reply ID) from a collection.",
  hints: { destructive: true, idempotent: true },
  input: collectionThreadInput,
  output: successOutput,
  run: async (ctx, input) => {
    await withMembership(ctx, input, async (tx, { collection, rootId }) => {
      const result = await tx.db
        .deleteFrom("collection_threads")
        .where("collection_id", "=", collection.id)
        .where("thread_id", "=", rootId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) > 0) await refreshCollectionFigures(tx.db, [collection.id]);
    });
    return { success: true as const };
  },
});
