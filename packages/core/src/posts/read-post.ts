import { sql } from "kysely";
import { loadAttachments } from "../attachments/load-attachments.js";
import { collectionIdsOf } from "../collections/memberships.js";
import type { EngineContext } from "../deps.js";
import { notFound } from "../errors.js";
import { findPost, type PostRow } from "./post-query.js";
import { type PostView, toPostView, type ViewOptions } from "./post-view.js";

/**
 * One post in the editing view with `collectionIds` and `threadPosition`, as
 * `GET /api/posts/:id` returns it.
 */
export async function readPost(
  ctx: EngineContext,
  id: string,
  options: ViewOptions & {
    withPosition: boolean;
    /**
     * True when the caller knows the post has no attachments: a create that attached none answers
     * without reading them (a round trip fewer on PostgreSQL).
     */
    withoutAttachments?: boolean;
  },
): Promise<PostView> {
  // Reads that need only what is known are sent together: on PostgreSQL each is a round trip, and
  // the pool runs them side by side (SQLite runs them one after another on its one connection).
  const [row, attachments] = await Promise.all([
    findPost(ctx.db, id),
    options.withoutAttachments ? undefined : loadAttachments(ctx.db, [id]),
  ]);
  if (!row) throw notFound("post", id);
  const view = toPostView(ctx, row, attachments?.get(id) ?? [], options);
  if (!options.withPosition) return view;
  const [collections, position] = await Promise.all([
    collectionIdsOf(ctx.db, [row.thread_id]),
    threadPosition(ctx, row),
  ]);
  return { ...view, collectionIds: collections.get(row.thread_id) ?? [], threadPosition: position };
}

/** 1 for the root; a reply's place after the root in Thread order (createdAt, then ID). */
async function threadPosition(ctx: EngineContext, row: PostRow): Promise<number> {
  if (row.id === row.thread_id) return 1;
  const { before } = await ctx.db
    .selectFrom("posts")
    .select(sql<number>`count(*)`.as("before"))
    .where("thread_id", "=", row.thread_id)
    .where("id", "<>", row.thread_id)
    .where((eb) =>
      eb.or([
        eb("created_at", "<", row.created_at),
        eb.and([eb("created_at", "=", row.created_at), eb("id", "<", row.id)]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(before) + 2;
}
