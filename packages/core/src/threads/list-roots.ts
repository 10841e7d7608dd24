import type { Kysely } from "kysely";
import { collectionPinFilter } from "../collections/memberships.js";
import type { Database } from "../db/schema.js";
import { type KeysetPage, pageBySegments } from "../pagination/keyset.js";
import type { ThreadListQuery } from "./thread-filter.js";
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
  const roots = selectRoots(db).where((eb) => eb.and(filterConditions(eb, query.filter)));
  const segments = order.map((segment) => ({
    order: segment,
    query: segment.where ? roots.where(segment.where) : roots,
  }));
  const { rows, nextCursor }: KeysetPage<StoredPost> = await pageBySegments(segments, page);
  return { roots: rows, nextCursor };
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
  return collectionSegmentsFor(order, status, (eb) => collectionPinFilter(eb, { slugs }));
}
