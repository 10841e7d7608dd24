import { invalidField } from "../errors.js";
import type { PostRow } from "../posts/post-query.js";
import { decodeCursor, encodeCursor } from "../shared/cursor.js";

/** The order name of a Thread's posts: the root, then replies by createdAt then ID. */
const order = "threads.posts";

/** Where a walk of a Thread's posts stands: after the root, or after one reply. */
export type ThreadPostsPosition = { after: "root" } | { after: "reply"; createdAt: number; id: string };

/**
 * The cursor after a post of the Thread. The first key places the root before every reply, so
 * the root leads even when a restored reply was created earlier. @see spec § Threads
 */
export function threadPostsCursor(row: Pick<PostRow, "id" | "thread_id" | "created_at">): string {
  return row.id === row.thread_id
    ? encodeCursor({ order, keys: [0, 0, row.id] })
    : encodeCursor({ order, keys: [1, row.created_at, row.id] });
}

/** Reads a Thread posts cursor (a `nextCursor` or a fold's `gap.cursor`); anything else is a 400. */
export function decodeThreadPostsCursor(cursor: string): ThreadPostsPosition {
  const [rank, createdAt, id] = decodeCursor(cursor, order, 3);
  if (rank === 0 && typeof id === "string") return { after: "root" };
  if (rank === 1 && typeof createdAt === "number" && typeof id === "string")
    return { after: "reply", createdAt, id };
  throw invalidField("cursor", "Unreadable cursor");
}
