import type { Kysely } from "kysely";
import type { Dialect } from "../db/dialect.js";
import type { Database } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { notFound } from "../errors.js";
import { lockCollection, type StoredCollection, threadOf } from "./collection-rows.js";
import { refreshCollectionFigures } from "./memberships.js";

type Tx = { db: Kysely<Database>; dialect: Dialect };

/**
 * Runs a membership change in one transaction with the engine's lock order: the Thread's root row
 * first (as post writes take it), then the collection. `threadId` may name any post of the Thread;
 * the change acts on its root. An unknown post or collection is 404.
 */
export async function withMembership<T>(
  ctx: EngineContext,
  input: { id: string; threadId: string },
  change: (tx: Tx, target: { collection: StoredCollection; rootId: string }) => Promise<T>,
): Promise<T> {
  return ctx.db.transaction().execute(async (trx) => {
    const tx = { db: trx, dialect: ctx.dialect };
    const rootId = await threadOf(trx, input.threadId);
    await ctx.dialect.lockRow(trx, { table: "posts", id: rootId });
    // The Thread may have been deleted while this waited for its lock.
    const root = await trx.selectFrom("posts").select("id").where("id", "=", rootId).executeTakeFirst();
    if (!root) throw notFound("post", input.threadId);
    const collection = await lockCollection(tx, input.id);
    return change(tx, { collection, rootId });
  });
}

/** True when the Thread is in the collection. */
export async function isMember(db: Kysely<Database>, collectionId: string, rootId: string): Promise<boolean> {
  const row = await db
    .selectFrom("collection_threads")
    .select("thread_id")
    .where("collection_id", "=", collectionId)
    .where("thread_id", "=", rootId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Adds the Thread (its root) to the collection unless it is in already; true when added. */
export async function addMember(tx: Tx, input: { collectionId: string; rootId: string; now: number }) {
  const root = await tx.db
    .selectFrom("posts")
    .select(["status", "language", "last_activity_at"])
    .where("id", "=", input.rootId)
    .executeTakeFirstOrThrow();
  const result = await tx.db
    .insertInto("collection_threads")
    .values({
      collection_id: input.collectionId,
      thread_id: input.rootId,
      created_at: input.now,
      position: null,
      pinned_at: null,
      thread_status: root.status,
      thread_language: root.language ?? "",
      thread_activity_at: Number(root.last_activity_at),
    })
    .onConflict((oc) => oc.columns(["collection_id", "thread_id"]).doNothing())
    .executeTakeFirst();
  const added = Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  if (added) await refreshCollectionFigures(tx.db, [input.collectionId]);
  return added;
}
