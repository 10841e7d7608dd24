import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import type { PostRow } from "../posts/post-query.js";
import { asReplyRow, type StoredPost } from "./thread-rows.js";

/** How many of the earliest published replies the fold keeps. */
export const leadingCount = 2;
/** How many of the latest published replies the fold keeps. */
export const trailingCount = 3;

/** The replies a fold keeps, as rows. `gap` is the first reply left out (null when none is). */
export interface FoldRows {
  leading: PostRow[];
  hidden: number;
  gap: PostRow | null;
  trailing: PostRow[];
}

/**
 * The folds of a page of Threads in one query: for each Thread with published replies, its first
 * `leadingCount + 1` and last `trailingCount` published replies, each an index seek on
 * `(thread_id, created_at, id)` joined by `union all`. The cost follows the page size, not the
 * length of the Threads; `hidden` comes from the published reply count kept on the root.
 * @see spec § Fold, docs/threads.md § Fold
 */
export async function loadFolds(db: Kysely<Database>, roots: PostRow[]): Promise<Map<string, FoldRows>> {
  const folds = new Map<string, FoldRows>(roots.map((root) => [root.id, emptyFold()]));
  const parts = roots
    .filter((root) => root.thread_reply_count > 0)
    .flatMap((root) => {
      const head = publishedReplies(db, root.id, "asc", leadingCount + 1);
      return root.thread_reply_count > leadingCount + 1
        ? [head, publishedReplies(db, root.id, "desc", trailingCount)]
        : [head];
    });
  if (parts.length === 0) return folds;
  const [first, ...rest] = parts.map((part, i) => db.selectFrom(part.as(`f${i}`)).selectAll());
  const rows = await rest
    .reduce((union, part) => union.unionAll(part), first as NonNullable<typeof first>)
    .execute();

  const byThread = new Map<string, Map<string, StoredPost>>();
  for (const row of rows) {
    const replies = byThread.get(row.thread_id) ?? new Map<string, StoredPost>();
    replies.set(row.id, row);
    byThread.set(row.thread_id, replies);
  }
  for (const root of roots) {
    const replies = [...(byThread.get(root.id)?.values() ?? [])]
      .sort(threadOrder)
      .map((row) => asReplyRow(row, root));
    folds.set(root.id, foldOf(replies, root.thread_reply_count));
  }
  return folds;
}

/** Splits the replies seen (sorted) into the fold; everything is shown while there are few. */
function foldOf(replies: PostRow[], publishedReplies: number): FoldRows {
  const shown = leadingCount + trailingCount;
  if (replies.length <= shown) {
    return {
      leading: replies.slice(0, leadingCount),
      hidden: 0,
      gap: null,
      trailing: replies.slice(leadingCount),
    };
  }
  return {
    leading: replies.slice(0, leadingCount),
    hidden: Math.max(publishedReplies, replies.length) - shown,
    gap: replies[leadingCount] ?? null,
    trailing: replies.slice(-trailingCount),
  };
}

function publishedReplies(db: Kysely<Database>, threadId: string, direction: "asc" | "desc", limit: number) {
  return db
    .selectFrom("posts as p")
    .selectAll("p")
    .where("p.thread_id", "=", threadId)
    .where("p.reply_to_id", "is not", null)
    .where("p.status", "=", "published")
    .orderBy("p.created_at", direction)
    .orderBy("p.id", direction)
    .limit(limit);
}

/** Thread order among replies: createdAt, then ID. */
export function threadOrder(
  a: Pick<StoredPost, "created_at" | "id">,
  b: Pick<StoredPost, "created_at" | "id">,
): number {
  return a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function emptyFold(): FoldRows {
  return { leading: [], hidden: 0, gap: null, trailing: [] };
}
