import type { EngineContext } from "../deps.js";
import { invalidField } from "../errors.js";
import { isValidSlug } from "../shared/slug.js";
import { isTypeId } from "../shared/type-id.js";
import type { AliasTargetType } from "./aliases.js";
import { refreshPostPermalink } from "./aliases.js";

/** An alias's target: a post or a collection by ID. */
export interface AliasTarget {
  type: AliasTargetType;
  id: string;
}

const prefixOf: Record<AliasTargetType, string> = { post: "pst", collection: "col" };
const tableOf = { post: "posts", collection: "collections" } as const;

/**
 * The target a client named in `targetId`: a TypeID of the target type's prefix, or the target's
 * slug. A malformed ID, text that is neither, and a target that does not exist are 400 naming
 * `targetId` (like an unknown collection in a post's `collectionIds`).
 */
export async function findAliasTarget(
  ctx: Pick<EngineContext, "db">,
  type: AliasTargetType,
  targetId: string,
): Promise<AliasTarget> {
  const prefix = prefixOf[type];
  let column: "id" | "slug";
  if (targetId.includes("_")) {
    if (!isTypeId(targetId, prefix))
      throw invalidField("targetId", `Expected a ${prefix}_ ID or a ${type} slug`);
    column = "id";
  } else if (isValidSlug(targetId)) {
    column = "slug";
  } else {
    throw invalidField("targetId", `Expected a ${prefix}_ ID or a ${type} slug`);
  }
  const row = await ctx.db
    .selectFrom(tableOf[type])
    .select("id")
    .where(column, "=", targetId)
    .executeTakeFirst();
  if (!row) throw invalidField("targetId", `Unknown ${type} ${targetId}`);
  return { type, id: row.id };
}

/**
 * Locks what owns each target's permalink, for the rest of the transaction: a post's Thread root
 * (the lock every post write takes, so a Thread being deleted and an alias being added to one of
 * its posts queue up), a collection's row. Thread roots are locked in ID order, then collections,
 * so two writers locking the same set never wait on each other crosswise. Returns the targets that
 * still exist afterwards (one deleted meanwhile is left out).
 */
export async function lockAliasTargets(
  ctx: Pick<EngineContext, "db" | "dialect">,
  targets: readonly AliasTarget[],
): Promise<AliasTarget[]> {
  const postIds = unique(targets.filter((t) => t.type === "post").map((t) => t.id));
  const collectionIds = unique(targets.filter((t) => t.type === "collection").map((t) => t.id));
  if (postIds.length > 0) {
    const threads = await ctx.db.selectFrom("posts").select("thread_id").where("id", "in", postIds).execute();
    for (const threadId of unique(threads.map((row) => row.thread_id)).sort()) {
      await ctx.dialect.lockRow(ctx.db, { table: "posts", id: threadId });
    }
  }
  for (const id of collectionIds.sort()) {
    await ctx.dialect.lockRow(ctx.db, { table: tableOf.collection, id });
  }
  const alive = new Set<string>();
  if (postIds.length > 0) {
    for (const row of await ctx.db.selectFrom("posts").select("id").where("id", "in", postIds).execute()) {
      alive.add(row.id);
    }
  }
  if (collectionIds.length > 0) {
    for (const row of await ctx.db
      .selectFrom(tableOf.collection)
      .select("id")
      .where("id", "in", collectionIds)
      .execute()) {
      alive.add(row.id);
    }
  }
  return targets.filter((t) => alive.has(t.id));
}

/** Recomputes where each target lives after its aliases changed (posts keep it in a column). */
export async function refreshPermalinks(
  ctx: Pick<EngineContext, "db">,
  targets: readonly AliasTarget[],
): Promise<void> {
  for (const target of targets) {
    if (target.type === "post") await refreshPostPermalink(ctx.db, target.id);
    // A collection's address is read from custom_urls when it is served (oldestAliasesOf).
  }
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
