import { invalidField } from "../errors.js";
import { checkKeys, type KeysetOrder, type KeyValues, keysOf } from "../pagination/keyset.js";
import type { PostRow } from "../posts/post-query.js";
import { decodeCursor, encodeCursor } from "../shared/cursor.js";
import type { StoredPost } from "./thread-rows.js";

/**
 * The replies of a Thread in Thread order: by createdAt, then ID. Its name is the cursor's order
 * name for the whole list, the root included (see {@link threadPostsCursor}).
 */
export const repliesOrder: KeysetOrder<Pick<StoredPost, "created_at" | "id">> = {
  name: "threads.posts",
  direction: "asc",
  keys: [
    { column: "p.created_at", type: "integer" },
    { column: "p.id", type: "string" },
  ],
};

/** Where a walk of a Thread's posts stands: after the root, or after one reply (its keys in {@link repliesOrder}). */
export type ThreadPostsPosition = { after: "root" } | { after: "reply"; keys: KeyValues };

/**
 * The cursor after a post of the Thread: a rank, then the reply's keys. The rank places the root
 * before every reply, so the root leads even when a restored reply was created earlier. @see spec § Threads
 */
export function threadPostsCursor(row: Pick<PostRow, "id" | "thread_id" | "created_at">): string {
  return row.id === row.thread_id
    ? encodeCursor({ order: repliesOrder.name, keys: [0, 0, row.id] })
    : encodeCursor({ order: repliesOrder.name, keys: [1, ...keysOf(repliesOrder, row)] });
}

/** Reads a Thread posts cursor (a `nextCursor` or a fold's `gap.cursor`); anything else is a 400. */
export function decodeThreadPostsCursor(cursor: string): ThreadPostsPosition {
  const [rank, ...keys] = decodeCursor(cursor, repliesOrder.name, repliesOrder.keys.length + 1);
  if (rank === 0 && typeof keys.at(-1) === "string") return { after: "root" };
  if (rank === 1) return { after: "reply", keys: checkKeys(repliesOrder, keys) };
  throw invalidField("cursor", "Unreadable cursor");
}
