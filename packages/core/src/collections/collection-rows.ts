import type { Kysely, Selectable } from "kysely";
import { checkNotReserved } from "../custom-urls/reserved-addresses.js";
import type { Dialect } from "../db/dialect.js";
import type { CollectionsTable, Database } from "../db/schema.js";
import { invalidField, notFound } from "../errors.js";
import { isValidSlug } from "../shared/slug.js";

/** A stored collection. */
export type StoredCollection = Selectable<CollectionsTable>;

/** One collection by ID, or undefined. */
export function findCollection(db: Kysely<Database>, id: string): Promise<StoredCollection | undefined> {
  return db.selectFrom("collections").selectAll().where("id", "=", id).executeTakeFirst();
}

/** One collection by ID, locked for the rest of the transaction; 404 when there is none. */
export async function lockCollection(
  ctx: { db: Kysely<Database>; dialect: Dialect },
  id: string,
): Promise<StoredCollection> {
  await ctx.dialect.lockRow(ctx.db, { table: "collections", id });
  const row = await findCollection(ctx.db, id);
  if (!row) throw notFound("collection", id);
  return row;
}

/** A collection slug: lowercase a–z, 0–9 and inner hyphens, at most 200, not reserved; else 400. */
export function checkCollectionSlug(slug: string, field = "slug"): void {
  if (!isValidSlug(slug)) throw invalidField(field, "Use only lowercase a-z, 0-9 and inner hyphens");
  checkNotReserved(slug, field);
}

/** The root ID of the Thread of post `postId` (root or reply), or 404. */
export async function threadOf(db: Kysely<Database>, postId: string): Promise<string> {
  const post = await db.selectFrom("posts").select("thread_id").where("id", "=", postId).executeTakeFirst();
  if (!post) throw notFound("post", postId);
  return post.thread_id;
}
