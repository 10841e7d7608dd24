import type { Kysely } from "kysely";
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
