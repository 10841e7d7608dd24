import type { Kysely } from "kysely";
import { compiled } from "../db/compiled.js";
import type { IdSet } from "../db/id-set.js";
import type { Database } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { claimAddress, releaseAddressesOf } from "./addresses.js";

/** What a custom URL alias can point at. @see spec § Custom URL */
export type AliasTargetType = "post" | "collection";

/**
 * Stores `path` (with its leading slash) as a custom URL alias of a target, claiming the address
 * first: a reserved path is 400 naming `field`, a taken one CONFLICT. Run it inside the target's
 * write transaction.
 */
export async function addAlias(
  ctx: Pick<EngineContext, "db" | "ids">,
  input: { path: string; targetType: AliasTargetType; targetId: string; now: number; field: string },
): Promise<void> {
  const id = ctx.ids.generate("pth");
  await claimAddress(ctx, {
    path: input.path.slice(1),
    ownerType: "custom_url",
    ownerId: id,
    field: input.field,
  });
  await ctx.db
    .insertInto("custom_urls")
    .values({
      id,
      path: input.path,
      target_type: input.targetType,
      target_id: input.targetId,
      created_at: input.now,
    })
    .execute();
}

/** Deletes every alias of the given targets and frees their addresses (a target being deleted). */
export async function removeAliasesOf(
  db: Kysely<Database>,
  input: { targetType: AliasTargetType; targetIds: IdSet },
): Promise<void> {
  const aliases = db
    .selectFrom("custom_urls")
    .select("id")
    .where("target_type", "=", input.targetType)
    .where("target_id", "in", input.targetIds);
  await releaseAddressesOf(db, aliases);
  await db.deleteFrom("custom_urls").where("id", "in", aliases).execute();
}

/**
 * Sets a post's `permalink_path` to its oldest custom URL alias (`created_at`, then ID), or null
 * when it has none: a post with several custom URLs lives at the oldest. Run it in the transaction
 * that added, moved or removed one of the post's aliases, after locking the post's Thread, so
 * concurrent writers each recompute from what the one before committed. `updated_at` is left
 * alone: an address is not an edit of the post. @see spec § Custom URL, § Public post (permalink)
 */
export async function refreshPostPermalink(db: Kysely<Database>, postId: string): Promise<void> {
  await db
    .updateTable("posts")
    .set((eb) => ({
      permalink_path: eb
        .selectFrom("custom_urls")
        .select("custom_urls.path")
        .where("custom_urls.target_type", "=", "post")
        .whereRef("custom_urls.target_id", "=", "posts.id")
        .orderBy("custom_urls.created_at")
        .orderBy("custom_urls.id")
        .limit(1),
    }))
    .where("id", "=", postId)
    .execute();
}

/**
 * The oldest custom URL alias (its path, with the leading slash) of each of the given targets that
 * has one, in one query: where a collection lives when it has custom URLs. Targets without an
 * alias are absent from the map (they live at `/{slug}`).
 */
export async function oldestAliasesOf(
  db: Kysely<Database>,
  input: { targetType: AliasTargetType; targetIds: readonly string[] },
): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  if (input.targetIds.length === 0) return result;
  const rows = await aliasesOfTargets.execute(db, {
    targetType: input.targetType,
    targetIds: [...input.targetIds],
  });
  for (const row of rows) {
    if (row.target_id !== null && !result.has(row.target_id)) result.set(row.target_id, row.path);
  }
  return result;
}

/** Compiled once (db/compiled.ts), the targets as one list parameter: public reads of collections and their Threads ask it. */
const aliasesOfTargets = compiled<{ targetType: string; targetIds: string[] }>()((db, p) =>
  db
    .selectFrom("custom_urls")
    .select(["target_id", "path"])
    .where("target_type", "=", p.value("targetType"))
    .where("target_id", "in", p.list("targetIds"))
    .orderBy("created_at")
    .orderBy("id"),
);
