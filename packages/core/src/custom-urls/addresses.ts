import type { Kysely } from "kysely";
import type { IdSet } from "../db/id-set.js";
import type { Database } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { conflict, EngineError } from "../errors.js";
import { checkNotReserved } from "./reserved-addresses.js";

/** What holds an address in the site's root namespace. */
export type AddressOwnerType = "post" | "collection" | "smart_collection" | "custom_url";

/**
 * Takes `path` (a slug, or a custom URL path without its leading slash) for an owner: a reserved
 * address is 400 naming `field`, the client's field that asked for it; a taken one is CONFLICT.
 * The primary key decides between concurrent writers (the claim is one conditional insert, so a
 * loser's transaction stays usable).
 */
export async function claimAddress(
  ctx: Pick<EngineContext, "db">,
  input: { path: string; ownerType: AddressOwnerType; ownerId: string; field: string },
): Promise<void> {
  checkNotReserved(input.path, input.field);
  if (!(await tryClaim(ctx.db, input))) throw conflict(`The address /${input.path} is already in use`);
}

/** How many generated candidates a writer tries before it falls back to its ID-derived ones. */
const maxCandidateClaims = 10;

/**
 * Takes a generated address for an owner: the first of `base`, `base-2` … `base-10` that nobody
 * holds (one primary-key read picks the candidates), else `base-` plus `fallbackSuffix`, else
 * `base-` plus the owner ID's whole suffix. Each claim is a conditional insert, so a candidate a
 * concurrent writer took first is skipped for the next one; at most 12 claims. Never CONFLICT:
 * the client did not ask for the address.
 * @see docs/reliability.md § Generated addresses
 */
export async function claimGeneratedAddress(
  ctx: Pick<EngineContext, "db">,
  input: { base: string; fallbackSuffix: string; ownerType: AddressOwnerType; ownerId: string },
): Promise<string> {
  const candidates = await freeCandidates(ctx.db, { base: input.base });
  const idSuffix = input.ownerId.slice(input.ownerId.lastIndexOf("_") + 1);
  const tries = [
    ...candidates.slice(0, maxCandidateClaims),
    `${input.base}-${input.fallbackSuffix}`,
    `${input.base}-${idSuffix}`,
  ];
  for (const path of tries) {
    if (await tryClaim(ctx.db, { ...input, path })) return path;
  }
  throw new EngineError("INTERNAL_ERROR", `No free address for ${input.ownerType} ${input.ownerId}`);
}

/** Moves an owner's address from `from` to `to` (a slug change): claims the new one, then frees the old. */
export async function moveAddress(
  ctx: Pick<EngineContext, "db">,
  input: { from: string; to: string; ownerType: AddressOwnerType; ownerId: string; field: string },
): Promise<void> {
  // Claiming first means two owners swapping addresses find each other's still held (409), rather
  // than each freeing its own and then waiting on the other's.
  await claimAddress(ctx, {
    path: input.to,
    ownerType: input.ownerType,
    ownerId: input.ownerId,
    field: input.field,
  });
  await releaseAddress(ctx.db, input.from);
}

/** Inserts the address unless someone holds it; true when this call took it. */
async function tryClaim(
  db: Kysely<Database>,
  input: { path: string; ownerType: AddressOwnerType; ownerId: string },
): Promise<boolean> {
  const result = await db
    .insertInto("site_addresses")
    .values({ path: input.path, owner_type: input.ownerType, owner_id: input.ownerId })
    .onConflict((oc) => oc.column("path").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
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
 * plus a short suffix from `fallbackSuffix` (e.g. the end of the owner's ID). A suggestion only:
 * {@link claimGeneratedAddress} takes one.
 */
export async function firstFreeAddress(
  db: Kysely<Database>,
  input: { base: string; fallbackSuffix: string; exceptOwnerId?: string | undefined },
): Promise<string> {
  return (await freeCandidates(db, input))[0] ?? `${input.base}-${input.fallbackSuffix}`;
}

/** Those of `base`, `base-2` … `base-10` that nobody (but `exceptOwnerId`) holds, in order. */
async function freeCandidates(
  db: Kysely<Database>,
  input: { base: string; exceptOwnerId?: string | undefined },
): Promise<string[]> {
  const candidates = [input.base, ...Array.from({ length: 9 }, (_, i) => `${input.base}-${i + 2}`)];
  const taken = await db
    .selectFrom("site_addresses")
    .select(["path", "owner_id"])
    .where("path", "in", candidates)
    .execute();
  const used = new Set(taken.filter((row) => row.owner_id !== input.exceptOwnerId).map((row) => row.path));
  return candidates.filter((candidate) => !used.has(candidate));
}
