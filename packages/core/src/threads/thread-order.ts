import { type Expression, type SqlBool, sql } from "kysely";
import { invalidField } from "../errors.js";
import { decodeCursor, encodeCursor } from "../shared/cursor.js";
import type { RootScope } from "./thread-filter.js";
import type { StoredPost } from "./thread-rows.js";
import type { ThreadSort } from "./thread-schemas.js";

/** A root column a Thread order sorts on (before `id`, which breaks ties). */
type KeyColumn = "last_activity_at" | "published_at" | "created_at" | "thread_updated_at" | "rating";

/**
 * One keyset-walkable stretch of a Thread order: the roots matching `where`, sorted by `columns`
 * then `id`, all in one direction. An order is one or more segments shown one after another
 * (pinned Threads, then the rest), each walked on its own index, so "pinned on top" needs no OFFSET.
 * `name` is the cursor's order name: a cursor says which order and which segment it is in.
 */
export interface Segment {
  name: string;
  where?: (eb: RootScope) => Expression<SqlBool>;
  columns: KeyColumn[];
  direction: "asc" | "desc";
}

/**
 * The segments of each order. @see spec § Threads (Orders), docs/threads.md § Orders
 * - activity: pinned Threads on top (newest activity first among them), then the rest by newest activity;
 * - published / oldest: root publication time, no pin lift (drafts, which have none, use creation time);
 * - updated: newest activity counting quiet replies, no pin lift;
 * - rating: highest rating first, then newest activity; unrated Threads after rated ones.
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
          columns: ["last_activity_at"],
          direction: "desc",
        },
        {
          name: "threads.activity",
          where: (eb) => eb("r.pinned_at", "is", null),
          columns: ["last_activity_at"],
          direction: "desc",
        },
      ];
    case "published":
      return [{ name: `threads.published${draftSuffix}`, columns: [timeColumn], direction: "desc" }];
    case "oldest":
      return [{ name: `threads.oldest${draftSuffix}`, columns: [timeColumn], direction: "asc" }];
    case "updated":
      return [{ name: "threads.updated", columns: ["thread_updated_at"], direction: "desc" }];
    case "rating":
      return [
        {
          name: "threads.rating",
          where: (eb) => eb("r.rating", "is not", null),
          columns: ["rating", "last_activity_at"],
          direction: "desc",
        },
        {
          name: "threads.rating.unrated",
          where: (eb) => eb("r.rating", "is", null),
          columns: ["last_activity_at"],
          direction: "desc",
        },
      ];
  }
}

/** Sort key values of a row, in segment order, `id` last. */
export type SegmentKeys = (number | string)[];

/** Where a walk stands: the segment it is in and the keys of the last root returned. */
export interface SegmentPosition {
  segment: number;
  keys: SegmentKeys;
}

/** The cursor of a row in a segment. @see spec § Pagination */
export function encodeSegmentCursor(segment: Segment, row: StoredPost): string {
  return encodeCursor({
    order: segment.name,
    keys: [...segment.columns.map((column) => row[column]), row.id],
  });
}

/**
 * Reads a cursor for an order made of `segments`. A cursor of another order, an unreadable one or
 * a bare ID is a 400 (the last segment's verdict, which names the order the list expected).
 */
export function decodeSegmentCursor(cursor: string, segments: Segment[]): SegmentPosition {
  let failure: unknown;
  for (const [index, segment] of segments.entries()) {
    let keys: ReturnType<typeof decodeCursor>;
    try {
      keys = decodeCursor(cursor, segment.name, segment.columns.length + 1);
    } catch (err) {
      failure = err;
      continue;
    }
    const values = keys.slice(0, -1);
    const id = keys.at(-1);
    if (!values.every((value) => typeof value === "number") || typeof id !== "string") {
      throw invalidField("cursor", "Unreadable cursor");
    }
    return { segment: index, keys: keys as SegmentKeys };
  }
  throw failure;
}

/** Rows strictly after `keys` in the segment's direction: one row-value comparison on the index's columns. */
export function afterCondition(eb: RootScope, segment: Segment, keys: SegmentKeys): Expression<SqlBool> {
  const columns = [...segment.columns.map((column) => eb.ref(`r.${column}`)), eb.ref("r.id")];
  const operator = segment.direction === "desc" ? sql.raw("<") : sql.raw(">");
  return sql<SqlBool>`(${sql.join(columns)}) ${operator} (${sql.join(keys)})`;
}
