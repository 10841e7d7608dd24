import type { Kysely } from "kysely";
import type { IdSet } from "../db/id-set.js";
import type { Database } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { conflict } from "../errors.js";

/** What holds an address in the site's root namespace. */
export type AddressOwnerType = "post" | "collection" | "smart_collection" | "custom_url";

/**
 * Takes `path` (a slug, or a custom URL path without its leading slash) for an owner. The primary
 * key decides between concurrent writers; the loser gets CONFLICT.
 */
export async function claimAddress(
  ctx: Pick<EngineContext, "db" | "dialect">,
  input: { path: string; ownerType: AddressOwnerType; ownerId: string },
): Promise<void> {
  try {
    await ctx.db
      .insertInto("site_addresses")
      .values({ path: input.path, owner_type: input.ownerType, owner_id: input.ownerId })
      .execute();
  } catch (err) {
    if (ctx.dialect.isUniqueViolation(err)) throw conflict(`The address /${input.path} is already in use`);
    throw err;
  }
}

/** Moves an owner's address from `from` to `to` (a slug change). */
export async function moveAddress(
  ctx: Pick<EngineContext, "db" | "dialect">,
  input: { from: string; to: string; ownerType: AddressOwnerType; ownerId: string },
): Promise<void> {
  await releaseAddress(ctx.db, input.from);
  await claimAddress(ctx, { path: input.to, ownerType: input.ownerType, ownerId: input.ownerId });
}

/** Frees one address. */
export async function releaseAddress(db: Kysely<Database>, path: string): Promise<void> {
  await db.deleteFrom("site_addresses").where("path", "=", path).execute();
}

/** Frees every address the given owners hold. */
export async function releaseAddressesOf(db: Kysely<Database>, ownerIds: IdSet): Promise<void> {
  await db.deleteFrom("site_addresses").where("owner_id", "in", ownerIds).execute();
}

/** True when nobody holds `path`, or `exceptOwnerId` does. */
export async function isAddressFree(
  db: Kysely<Database>,
  path: string,
  exceptOwnerId?: string,
): Promise<boolean> {
  const row = await db
    .selectFrom("site_addresses")
    .select("owner_id")
    .where("path", "=", path)
    .executeTakeFirst();
  return row === undefined || row.owner_id === exceptOwnerId;
}

/**
 * The first free address among `base`, `base-2` … `base-10` (one primary-key read), else `base-`
 * plus a short suffix from `fallbackSuffix` (e.g. the end of the owner's ID).
 */
export async function firstFreeAddress(
  db: Kysely<Database>,
  input: { base: string; fallbackSuffix: string; exceptOwnerId?: string | undefined },
): Promise<string> {
  const candidates = [input.base, ...Array.from({ length: 9 }, (_, i) => `${input.base}-${i + 2}`)];
  const taken = await db
    .selectFrom("site_addresses")
    .select(["path", "owner_id"])
    .where("path", "in", candidates)
    .execute();
  const used = new Set(taken.filter((row) => row.owner_id !== input.exceptOwnerId).map((row) => row.path));
  return candidates.find((candidate) => !used.has(candidate)) ?? `${input.base}-${input.fallbackSuffix}`;
}
