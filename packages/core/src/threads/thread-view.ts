import { loadAttachments } from "../attachments/load-attachments.js";
import { publicCollectionRefsOf } from "../collections/public-refs.js";
import type { EngineContext } from "../deps.js";
import type { PostRow } from "../posts/post-query.js";
import {
  type PostView,
  type PublicPostView,
  permalinkOf,
  toPostView,
  toPublicPostView,
  type ViewOptions,
} from "../posts/post-view.js";
import { withReadableParents } from "../posts/readable-parents.js";
import { type FoldRows, loadFolds } from "./fold.js";
import { threadPostsCursor } from "./thread-posts-cursor.js";
import { columnsFor, type KnownFlags } from "./thread-rows.js";

/** Which view of posts a read returns: editing (`/api/threads`) or reading (`/api/public/threads`). */
export type PostViewKind = "editing" | "reading";

/** The first reply a fold leaves out. `permalink` only on the public endpoint. @see spec § Fold */
export interface GapView {
  id: string;
  slug: string;
  cursor: string;
  permalink?: string;
}

/** The replies shown under a Thread. @see spec § Fold */
export interface FoldView<Post> {
  leading: Post[];
  hidden: number;
  gap: GapView | null;
  trailing: Post[];
}

/** A Thread. @see spec § Thread */
export interface ThreadView<Post> {
  id: string;
  postCount: number;
  lastActivityAt: number;
  threadUpdatedAt: number;
  root: Post;
  fold?: FoldView<Post>;
}

/** A Thread in the editing view. */
export type OwnerThreadView = ThreadView<PostView>;
/** A Thread in the reading view. */
export type PublicThreadView = ThreadView<PublicPostView>;

/** Options of a Thread read. */
export interface ThreadReadOptions extends ViewOptions {
  fold: boolean;
}

/**
 * The Thread objects of a page of roots: a bounded number of queries whatever the page size (the
 * folds, every attachment of every post shown, and in the reading view the Threads' collections).
 */
export async function toThreadViews<Kind extends PostViewKind>(
  ctx: EngineContext,
  roots: PostRow[],
  kind: Kind,
  options: ThreadReadOptions,
): Promise<ThreadView<Kind extends "editing" ? PostView : PublicPostView>[]> {
  // Reads that need the same rows go together: on PostgreSQL each is a round trip, and the pool
  // runs them side by side (SQLite runs them one after another on its one connection).
  const [folds, collections] = await Promise.all([
    options.fold ? loadFolds(ctx.db, roots, columnsFor(kind, options.content)) : undefined,
    kind === "reading"
      ? publicCollectionRefsOf(
          ctx,
          // A listed root says whether its Thread is in any collection; none: no query at all.
          roots.filter((root) => (root as KnownFlags).in_collections !== 0).map((root) => root.id),
        )
      : undefined,
  ]);
  const shown = roots.flatMap((root) => {
    const fold = folds?.get(root.id);
    return fold ? [root, ...fold.leading, ...fold.trailing] : [root];
  });
  const [attachments] = await Promise.all([
    loadAttachments(
      ctx.db,
      shown.map((row) => row.id),
    ),
    // A fold row known not to answer a draft reply keeps its parent; only the others may need another.
    kind === "reading"
      ? withReadableParents(
          ctx.db,
          shown.filter((row) => (row as KnownFlags).parent_draft !== 0),
        )
      : undefined,
  ]);
  const view = (row: PostRow) => {
    const media = attachments.get(row.id) ?? [];
    return kind === "editing"
      ? toPostView(ctx, row, media, options)
      : toPublicPostView(ctx, row, media, options, collections?.get(row.thread_id));
  };
  return roots.map((root) => {
    const thread: ThreadView<PostView | PublicPostView> = {
      id: root.id,
      postCount: root.thread_post_count,
      lastActivityAt: root.last_activity_at,
      threadUpdatedAt: root.thread_updated_at,
      root: view(root),
    };
    const fold = folds?.get(root.id);
    if (fold) thread.fold = toFoldView(ctx, fold, kind, view);
    return thread as ThreadView<Kind extends "editing" ? PostView : PublicPostView>;
  });
}

function toFoldView<Post>(
  ctx: EngineContext,
  fold: FoldRows,
  kind: PostViewKind,
  view: (row: PostRow) => Post,
): FoldView<Post> {
  const lastLeading = fold.leading.at(-1);
  let gap: GapView | null = null;
  if (fold.gap && lastLeading) {
    gap = { id: fold.gap.id, slug: fold.gap.slug, cursor: threadPostsCursor(lastLeading) };
    if (kind === "reading") gap.permalink = permalinkOf(ctx, fold.gap);
  }
  return { leading: fold.leading.map(view), hidden: fold.hidden, gap, trailing: fold.trailing.map(view) };
}
