import type { Kysely } from "kysely";
import type { CollectionRef } from "../collections/memberships.js";
import { detectDialect } from "../db/dialect.js";
import type { Database } from "../db/schema.js";
import { type KeysetPage, pageBySegments } from "../pagination/keyset.js";
import type { RootScope, ThreadListQuery } from "./thread-filter.js";
import { filterConditions } from "./thread-filter.js";
import {
  type CollectionListOrder,
  collectionSegmentsFor,
  type Segment,
  segmentsFor,
} from "./thread-order.js";
import { type StoredPost, selectRoots } from "./thread-rows.js";

/** One page of roots and the cursor of the next page (null on the last page). */
export interface RootPage {
  roots: StoredPost[];
  nextCursor: string | null;
}

/**
 * One page of a Thread list's roots by keyset: each segment of the order is read from the cursor's
 * position with `limit + 1` rows at most (one query per segment read), so a deep page costs what
 * the first one does. The extra row only tells whether another page exists.
 * @see spec § Pagination, docs/threads.md § Orders, docs/collections.md § Thread lists by collection
 */
export async function listRoots(
  db: Kysely<Database>,
  query: ThreadListQuery,
  page: { cursor?: string | undefined; limit: number },
): Promise<RootPage> {
  const order = await segmentsOf(db, query);
  if (!order) return { roots: [], nextCursor: null };
  const conditions = (eb: RootScope) => eb.and(filterConditions(eb, query.filter));
  const roots = selectRoots(db).where(conditions);
  const segments = order.map((segment) => {
    const source = segment.pinnedIn
      ? pinnedRoots(db, segment.pinnedIn).where(conditions)
      : segment.index
        ? rootsThrough(db, segment.index).where(conditions)
        : roots;
    return { order: segment, query: segment.where ? source.where(segment.where) : source };
  });
  const { rows, nextCursor }: KeysetPage<StoredPost> = await pageBySegments(segments, page);
  return { roots: rows, nextCursor };
}

/**
 * Roots pinned in the named collections, aliased `r` like {@link selectRoots}: read from the
 * pinned memberships first (a CROSS JOIN keeps SQLite's planner on that order; PostgreSQL plans it
 * by its statistics), so the pinned section costs what its few rows do, not a walk of an index.
 */
function pinnedRoots(db: Kysely<Database>, collections: CollectionRef): ReturnType<typeof selectRoots> {
  let pinned = db
    .selectFrom("collection_threads as m")
    .select("m.thread_id")
    .distinct()
    .where("m.pinned_at", "is not", null);
  pinned =
    "ids" in collections
      ? pinned.where("m.collection_id", "in", collections.ids)
      : pinned.where("m.collection_id", "in", (sub) =>
          sub.selectFrom("collections as c").select("c.id").where("c.slug", "in", collections.slugs),
        );
  const query = db
    .selectFrom(pinned.as("p"))
    .crossJoin("posts as r")
    .whereRef("r.id", "=", "p.thread_id")
    .where("r.reply_to_id", "is", null)
    .selectAll("r");
  return query as unknown as ReturnType<typeof selectRoots>;
}

/** Roots aliased `r` like {@link selectRoots}, read through the partial index `index` (see `Segment.index`). */
function rootsThrough(db: Kysely<Database>, index: string): ReturnType<typeof selectRoots> {
  const from = detectDialect(db).tableIndexedBy("posts", "r", index) as unknown as "posts as r";
  return db.selectFrom(from).selectAll("r").where("r.reply_to_id", "is", null);
}

const collectionOrders: Record<string, CollectionListOrder> = {
  newest: "newest",
  oldest: "oldest",
  rating_desc: "rating",
};

/**
 * The segments of a list's order. With a `collection` filter (spec § Threads rule 4): one
 * collection and no `sort` lists in the collection's `sortOrder`, several by activity, both with
 * the collections' pins on top; `activity`, `oldest` and `rating` keep those pins; `published`
 * and `updated` treat the collection as a plain filter. Undefined when the one named collection
 * does not exist (the list is empty).
 */
async function segmentsOf(db: Kysely<Database>, query: ThreadListQuery): Promise<Segment[] | undefined> {
  const { status, collections: slugs } = query.filter;
  if (!slugs || query.sort === "published" || query.sort === "updated")
    return segmentsFor(query.sort, status);
  let order: CollectionListOrder;
  if (query.defaultSort && slugs.length === 1) {
    const collection = await db
      .selectFrom("collections")
      .select("sort_order")
      .where("slug", "=", slugs[0] as string)
      .executeTakeFirst();
    if (!collection) return undefined;
    order = collectionOrders[collection.sort_order] ?? "newest";
  } else {
    order = query.sort === "oldest" ? "oldest" : query.sort === "rating" ? "rating" : "activity";
  }
  return collectionSegmentsFor(order, status, { slugs });
}
