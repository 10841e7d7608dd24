import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { collectionThreadInput } from "./collection-schemas.js";
import { addMember, withMembership } from "./thread-membership.js";

/**
 * Adds a whole Thread to a collection; `threadId` may be its root or any reply. Adding a Thread
 * already in the collection changes nothing and answers ok-body too.
 * @see spec § POST /api/collections/:id/threads
 */
export const addThread = defineOperation({
  id: "collections.addThread",
  access: "owner",
  description: "Adds a whole Thread (root or reply ID) to a collection.",
  hints: { idempotent: true },
  input: collectionThreadInput,
  output: successOutput,
  run: async (ctx, input) => {
    const now = ctx.clock.now();
    await withMembership(ctx, input, (tx, { collection, rootId }) =>
      addMember(tx, { collectionId: collection.id, rootId, now }),
    );
    return { success: true as const };
  },
});
