import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { successOutput } from "../shared/outputs.js";
import { collectionThreadInput } from "./collection-schemas.js";
import { withMembership } from "./thread-membership.js";

async function setPin(
  ctx: Parameters<typeof withMembership>[0],
  input: { id: string; threadId: string },
  pinnedAt: number | null,
): Promise<{ success: true }> {
  await withMembership(ctx, input, async (tx, { collection, rootId }) => {
    // Keeps the first pin time when pinned again; unpinning an unpinned Thread changes nothing.
    const result = await tx.db
      .updateTable("collection_threads")
      .set((eb) => ({ pinned_at: pinnedAt === null ? null : eb.fn.coalesce("pinned_at", eb.val(pinnedAt)) }))
      .where("collection_id", "=", collection.id)
      .where("thread_id", "=", rootId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      throw notFound("Thread in collection", `${rootId} (add it to collection ${collection.id} first)`);
    }
  });
  return { success: true };
}

/**
 * Pins a Thread in a collection (root or reply ID): it lists on top of the collection's Thread
 * list. The Thread must be in the collection (else 404); pinning again keeps the first pin time.
 * @see spec § PUT /api/collections/:id/threads/:threadId/pin
 */
export const pinThread = defineOperation({
  id: "collections.pinThread",
  access: "owner",
  description: "Pins a Thread (root or reply ID) on top of a collection it is in.",
  hints: { idempotent: true },
  input: collectionThreadInput,
  output: successOutput,
  run: (ctx, input) => setPin(ctx, input, ctx.clock.now()),
});

/**
 * Unpins a Thread in a collection (root or reply ID); the Thread must be in the collection (else
 * 404). @see spec § DELETE /api/collections/:id/threads/:threadId/pin
 */
export const unpinThread = defineOperation({
  id: "collections.unpinThread",
  access: "owner",
  description: "Unpins a Thread (root or reply ID) in a collection.",
  hints: { idempotent: true },
  input: collectionThreadInput,
  output: successOutput,
  run: (ctx, input) => setPin(ctx, input, null),
});
