import type { Expression, SqlBool } from "kysely";
import { type CollectionRef, collectionUnpinnedFilter } from "../collections/memberships.js";
import type { KeysetOrder, SortKey } from "../pagination/keyset.js";
import type { RootScope } from "./thread-filter.js";
import type { StoredPost } from "./thread-rows.js";
import type { ThreadSort } from "./thread-schemas.js";

/** A root column a Thread order sorts on (before `id`, which breaks ties). */
type KeyColumn = "last_activity_at" | "published_at" | "created_at" | "thread_updated_at" | "rating";

/**
 * One keyset-walkable stretch of a Thread order: the roots matching `where`, sorted by its keys
 * (root columns, then `id`), all in one direction. An order is one or more segments shown one after
 * another (pinned Threads, then the rest), each walked on its own index, so "pinned on top" needs no
 * OFFSET. `name` is the cursor's order name: a cursor says which order and which segment it is in.
 */
export interface Segment extends KeysetOrder<StoredPost> {
  where?: (eb: RootScope) => Expression<SqlBool>;
  /**
   * Read this segment from these collections' pinned Threads (a few rows, then sorted) rather than
   * by walking an order's index, where pinned Threads are rare.
   */
  pinnedIn?: CollectionRef;
  /**
   * The partial index this segment is read through (SQLite is told, see `Dialect.tableIndexedBy`):
   * the site's pinned Threads are a few rows of `threads_pinned`, which SQLite's planner would
   * otherwise skip for `threads_activity_all`, checking every published root for a pin.
   */
  index?: string;
}

/** The keys of a segment sorted on `columns`: those root columns, then the root ID. */
function keys(...columns: KeyColumn[]): SortKey<StoredPost>[] {
  return [
    ...columns.map((column) => ({ column: `r.${column}` as const, type: "integer" as const })),
    { column: "r.id", type: "string" },
  ];
}

/**
 * The segments of each order. @see spec § Threads (Orders), docs/threads.md § Orders
 * - activity: pinned Threads on top (newest activity first among them), then the rest by newest activity;
 * - published / oldest: root publication time, no pin lift (drafts, which have none, use creation time);
 * - updated: newest activity counting quiet replies, no pin lift;
 * - rating: highest rating first, then newest activity; unrated Threads after rated ones.
 * Every key is non-null in its segment (a published root has `published_at`; `rating` is split
 * into the rated section and the rest), as a keyset order requires.
 */
export function segmentsFor(sort: ThreadSort, status: "published" | "draft"): Segment[] {
  const timeColumn: KeyColumn = status === "draft" ? "created_at" : "published_at";
  const draftSuffix = status === "draft" ? ".draft" : "";
  switch (sort) {
    case "activity":
      return [
        {
          name: "threads.activity.pinned",
          where: (eb) => eb("r.pinned_at", "is not", null),
          index: "threads_pinned",
          keys: keys("last_activity_at"),
          direction: "desc",
        },
        {
          name: "threads.activity",
          where: (eb) => eb("r.pinned_at", "is", null),
          keys: keys("last_activity_at"),
          direction: "desc",
        },
      ];
    case "published":
      return [{ name: `threads.published${draftSuffix}`, keys: keys(timeColumn), direction: "desc" }];
    case "oldest":
      return [{ name: `threads.oldest${draftSuffix}`, keys: keys(timeColumn), direction: "asc" }];
    case "updated":
      return [{ name: "threads.updated", keys: keys("thread_updated_at"), direction: "desc" }];
    case "rating":
      return [
        {
          name: "threads.rating",
          where: (eb) => eb("r.rating", "is not", null),
          keys: keys("rating", "last_activity_at"),
          direction: "desc",
        },
        {
          name: "threads.rating.unrated",
          where: (eb) => eb("r.rating", "is", null),
          keys: keys("last_activity_at"),
          direction: "desc",
        },
      ];
  }
}

/** The order of a Thread list filtered by collections with their pins on top (spec § Threads rule 4). */
export type CollectionListOrder = "activity" | "newest" | "oldest" | "rating";

/**
 * The segments of a collection-filtered list that keeps the collections' pins: the Threads pinned
 * in one of the named collections first, then the rest, each section in `order`. The site-wide
 * pin plays no part here (a collection's own pins replace it). The order names differ from the
 * unfiltered lists' (`threads.collection.*`), so a cursor of one is refused by the other.
 * - activity: newest activity first; newest / oldest: root publication (drafts: creation);
 * - rating: highest rating, then newest activity, unrated Threads after rated ones.
 * @see docs/collections.md § Thread lists by collection
 */
export function collectionSegmentsFor(
  order: CollectionListOrder,
  status: "published" | "draft",
  collections: CollectionRef,
): Segment[] {
  const unpinned = (eb: RootScope) => collectionUnpinnedFilter(eb, collections);
  const timeColumn: KeyColumn = status === "draft" ? "created_at" : "published_at";
  const draftSuffix = status === "draft" ? ".draft" : "";
  const base: Segment[] =
    order === "activity"
      ? [{ name: "threads.collection.activity", keys: keys("last_activity_at"), direction: "desc" }]
      : order === "newest"
        ? [{ name: `threads.collection.newest${draftSuffix}`, keys: keys(timeColumn), direction: "desc" }]
        : order === "oldest"
          ? [{ name: `threads.collection.oldest${draftSuffix}`, keys: keys(timeColumn), direction: "asc" }]
          : [
              {
                name: "threads.collection.rating",
                where: (eb) => eb("r.rating", "is not", null),
                keys: keys("rating", "last_activity_at"),
                direction: "desc",
              },
              {
                name: "threads.collection.rating.unrated",
                where: (eb) => eb("r.rating", "is", null),
                keys: keys("last_activity_at"),
                direction: "desc",
              },
            ];
  const within = (segment: Segment, condition: (eb: RootScope) => Expression<SqlBool>) => {
    const where = segment.where;
    return (eb: RootScope) => (where ? eb.and([where(eb), condition(eb)]) : condition(eb));
  };
  return [
    ...base.map((segment) => ({ ...segment, name: `${segment.name}.pinned`, pinnedIn: collections })),
    ...base.map((segment) => ({ ...segment, where: within(segment, unpinned) })),
  ];
}
