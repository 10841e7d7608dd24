import { loadAttachments } from "../attachments/load-attachments.js";
import { publicCollectionRefsOf } from "../collections/public-refs.js";
import type { EngineContext } from "../deps.js";
import { readByKeys } from "../pagination/keyset.js";
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
  const replies = ctx.db
    .selectFrom("posts as p")
    .selectAll("p")
    .where("p.thread_id", "=", root.id)
    .where("p.reply_to_id", "is not", null)
    .where("p.status", "=", options.status);
  const after = position?.after === "reply" ? position.keys : undefined;
  const found = await readByKeys(replies, repliesOrder, { after, limit: wanted });
  const rows = [...(withRoot ? [root] : []), ...found.rows.map((row) => asReplyRow(row, root))];
  const last = rows.at(-1);
  const nextCursor = found.more && last ? threadPostsCursor(last) : null;
  if (kind === "reading") await withReadableParents(ctx.db, rows);
  const attachments = await loadAttachments(
    ctx.db,
    rows.map((row) => row.id),
  );
  const collections =
    kind === "reading" ? (await publicCollectionRefsOf(ctx, [root.id])).get(root.id) : undefined;
  const posts = rows.map((row) => {
    const media = attachments.get(row.id) ?? [];
    return kind === "editing"
      ? toPostView(ctx, row, media, options)
      : toPublicPostView(ctx, row, media, options, collections);
  });
  return { posts: posts as (Kind extends "editing" ? PostView : PublicPostView)[], nextCursor };
}
