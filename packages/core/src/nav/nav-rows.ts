import type { Kysely } from "kysely";
import { oldestAliasesOf } from "../custom-urls/aliases.js";
import type { Dialect } from "../db/dialect.js";
import type { Database } from "../db/schema.js";
import { notFound } from "../errors.js";
import type { NavTarget, StoredNavItem } from "./nav-view.js";

/**
 * Takes the navigation's one lock row for the rest of the transaction: every navigation write
 * holds it before reading positions, so two writers never compute the same key.
 */
export async function lockNav(ctx: { db: Kysely<Database>; dialect: Dialect }): Promise<void> {
  await ctx.dialect.lockRow(ctx.db, { table: "nav_lock", id: "nav" });
}

/** Byte-order comparison of fractional keys, ID breaking ties (the database's collation plays no part). */
export function byPosition(a: { position: string; id: string }, b: { position: string; id: string }): number {
  if (a.position !== b.position) return a.position < b.position ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Every stored item in navigation order, shown or not (the list is small and read whole). */
export async function loadNavRows(db: Kysely<Database>): Promise<StoredNavItem[]> {
  const rows = await db.selectFrom("nav_items").selectAll().execute();
  return rows.sort(byPosition);
}

/**
 * One stored item, locked for the rest of the transaction (`FOR UPDATE` on PostgreSQL), or a 404.
 * Unlocked, a delete committing between this read and the write (a delete takes no nav lock: it
 * computes no key) left the write updating nothing and its answer reading nothing: a 500.
 */
export async function lockNavItem(
  ctx: { db: Kysely<Database>; dialect: Dialect },
  id: string,
): Promise<StoredNavItem> {
  return ctx.dialect
    .lockingRead(ctx.db.selectFrom("nav_items").selectAll().where("id", "=", id))
    .executeTakeFirstOrThrow(() => notFound("nav item", id));
}

/** A stored item with its target as it is now; `shown` is false when the target is gone or unreadable. */
export interface ResolvedNavRow {
  row: StoredNavItem;
  target: NavTarget | undefined;
  shown: boolean;
}

/**
 * Every item with its target's current title and address, in one query (left joins on the
 * collection, smart collection and post, and the post's root for its visibility; a second one for
 * the custom URLs of listed collections), in navigation order. A target item is shown while its
 * target exists; a page while its post is also published and not private.
 * @see docs/navigation.md § Targets
 */
export async function resolveNavRows(db: Kysely<Database>, ids?: string[]): Promise<ResolvedNavRow[]> {
  let query = db
    .selectFrom("nav_items as n")
    .leftJoin("collections as c", "c.id", "n.collection_id")
    .leftJoin("smart_collections as s", "s.id", "n.smart_collection_id")
    .leftJoin("posts as p", "p.id", "n.post_id")
    .leftJoin("posts as root", "root.id", "p.thread_id")
    .selectAll("n")
    .select([
      "c.title as collection_title",
      "c.slug as collection_slug",
      "s.title as smart_title",
      "s.slug as smart_slug",
      "p.title as post_title",
      "p.slug as post_slug",
      "p.permalink_path as post_permalink",
      "p.status as post_status",
      "root.visibility as root_visibility",
    ]);
  if (ids) query = query.where("n.id", "in", ids);
  const rows = await query.execute();
  // A collection with custom URLs lives at the oldest (spec § Custom URL): one more query, made only
  // when a collection item is listed.
  const collectionIds = rows.flatMap((row) => (row.collection_id === null ? [] : [row.collection_id]));
  const aliases = await oldestAliasesOf(db, { targetType: "collection", targetIds: collectionIds });
  return rows
    .map(({ collection_title, collection_slug, smart_title, smart_slug, ...rest }) => {
      const { post_title, post_slug, post_permalink, post_status, root_visibility, ...row } = rest;
      switch (row.type) {
        case "collection":
          return collection_slug === null || collection_title === null
            ? { row, target: undefined, shown: false }
            : {
                row,
                target: {
                  title: collection_title,
                  path: aliases.get(row.collection_id as string) ?? `/${collection_slug}`,
                },
                shown: true,
              };
        case "smart_collection":
          return smart_slug === null || smart_title === null
            ? { row, target: undefined, shown: false }
            : { row, target: { title: smart_title, path: `/${smart_slug}` }, shown: true };
        case "page": {
          if (post_slug === null) return { row, target: undefined, shown: false };
          const target = { title: post_title ?? "", path: post_permalink ?? `/${post_slug}` };
          return { row, target, shown: post_status === "published" && root_visibility !== "private" };
        }
        default:
          return { row, target: undefined, shown: true };
      }
    })
    .sort((a, b) => byPosition(a.row, b.row));
}
