import type { Kysely } from "kysely";
import { loadAttachments } from "../attachments/load-attachments.js";
import { publicCollectionRefsOf } from "../collections/public-refs.js";
import { compiled, type Params } from "../db/compiled.js";
import type { Database } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { inKeyOrder } from "../pagination/keyset.js";
import type { PostRow } from "../posts/post-query.js";
import {
  type PostView,
  type PublicPostView,
  toPostView,
  toPublicPostView,
  type ViewOptions,
} from "../posts/post-view.js";
import { withReadableParents } from "../posts/readable-parents.js";
import { decodeThreadPostsCursor, repliesOrder, threadPostsCursor } from "./thread-posts-cursor.js";
import { asReplyRow } from "./thread-rows.js";
import type { PostViewKind } from "./thread-view.js";

/** Options of one page of a Thread's posts. */
export interface ThreadPostsOptions extends ViewOptions {
  status: "published" | "draft";
  cursor?: string | undefined;
  limit: number;
}

/**
 * One page of a Thread's posts in Thread order: the root first, then replies by createdAt then ID
 * (keyset on `(thread_id, created_at, id)`). A reply created during a walk sorts last, so the walk
 * reaches it. @see spec § Threads (posts), § Pagination
 */
export async function readThreadPosts<Kind extends PostViewKind>(
  ctx: EngineContext,
  root: PostRow,
  kind: Kind,
  options: ThreadPostsOptions,
): Promise<{ posts: (Kind extends "editing" ? PostView : PublicPostView)[]; nextCursor: string | null }> {
  const position = options.cursor ? decodeThreadPostsCursor(options.cursor) : undefined;
  const withRoot = position === undefined && root.status === options.status;
  const wanted = options.limit - (withRoot ? 1 : 0);
  const params = { threadId: root.id, status: options.status, take: wanted + 1 };
  const replyRows =
    position?.after === "reply"
      ? repliesAfter.execute(ctx.db, {
          ...params,
          createdAt: position.keys[0] as number,
          id: position.keys[1] as string,
        })
      : firstReplies.execute(ctx.db, params);
  // The Thread's collections need only the root: read beside the replies (on PostgreSQL each read
  // is a round trip, and the pool runs them side by side).
  const [read, refs] = await Promise.all([
    replyRows,
    kind === "reading" ? publicCollectionRefsOf(ctx, [root.id]) : undefined,
  ]);
  const collections = refs?.get(root.id);
  const more = read.length > wanted;
  const replies = more ? read.slice(0, wanted) : read;
  const rows = [...(withRoot ? [root] : []), ...replies.map((row) => asReplyRow(row, root))];
  const last = rows.at(-1);
  const nextCursor = more && last ? threadPostsCursor(last) : null;
  const [attachments] = await Promise.all([
    loadAttachments(
      ctx.db,
      rows.map((row) => row.id),
    ),
    kind === "reading" ? withReadableParents(ctx.db, rows) : undefined,
  ]);
  const posts = rows.map((row) => {
    const media = attachments.get(row.id) ?? [];
    return kind === "editing"
      ? toPostView(ctx, row, media, options)
      : toPublicPostView(ctx, row, media, options, collections);
  });
  return { posts: posts as (Kind extends "editing" ? PostView : PublicPostView)[], nextCursor };
}

/** The parameters of a page of replies: the Thread, the status, how many rows to read (one past the page). */
type RepliesParams = { threadId: string; status: string; take: number };

/** A Thread's replies of one status, for {@link inKeyOrder} in {@link repliesOrder}. */
function repliesOf(db: Kysely<Database>, p: Params<RepliesParams>) {
  return db
    .selectFrom("posts as p")
    .selectAll("p")
    .where("p.thread_id", "=", p.value("threadId"))
    .where("p.reply_to_id", "is not", null)
    .where("p.status", "=", p.value("status"));
}

// Compiled once (db/compiled.ts): the first page, and a page after a reply's keys. Every read of a
// Thread's posts (a public Thread page, its posts list, the owner's view) runs one of them.
const firstReplies = compiled<RepliesParams>()((db, p) =>
  inKeyOrder(repliesOf(db, p), repliesOrder).limit(p.value("take")),
);

const repliesAfter = compiled<RepliesParams & { createdAt: number; id: string }>()((db, p) =>
  inKeyOrder(repliesOf(db, p), repliesOrder, [p.value("createdAt"), p.value("id")]).limit(p.value("take")),
);
