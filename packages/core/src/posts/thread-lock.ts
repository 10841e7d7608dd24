import { compiled } from "../db/compiled.js";
import type { EngineContext } from "../deps.js";

/**
 * Locks the Thread of post `postId` for the rest of the transaction `ctx.db`: its root row, which
 * holds the Thread figures. Every write that changes a Thread's posts or figures takes this lock
 * before it reads them, so concurrent writers to one Thread queue up and each recomputes the
 * figures from what the one before committed. Read the post again after the lock: it (or its
 * whole Thread) may have been deleted meanwhile. Returns the Thread's ID, or undefined when the
 * post does not exist.
 * @see docs/threads.md § Thread figures under concurrent writers
 */
export async function lockThreadOf(
  ctx: Pick<EngineContext, "db" | "dialect">,
  postId: string,
): Promise<string | undefined> {
  // Where each statement is a round trip to the server (PostgreSQL), one finds and locks the root.
  if (ctx.dialect.roundTrips) return (await lockRootOfPost.executeTakeFirst(ctx.db, { id: postId }))?.id;
  // A post's Thread never changes, so reading it before the lock is safe.
  const post = await threadOfPost.executeTakeFirst(ctx.db, { id: postId });
  if (!post) return undefined;
  await ctx.dialect.lockRow(ctx.db, { table: "posts", id: post.thread_id });
  return post.thread_id;
}

/** Compiled once (db/compiled.ts): every write to a Thread's posts starts with it. */
const threadOfPost = compiled<{ id: string }>()((db, p) =>
  db.selectFrom("posts").select("thread_id").where("id", "=", p.value("id")),
);

/**
 * PostgreSQL: the root of the post's Thread, read `FOR UPDATE`. The root's ID comes from a
 * subquery run once, before the lock; a root deleted while this waits for its lock gives no row,
 * as the dialect's `lockRow` locks nothing when the row is missing. SQLite has no `FOR UPDATE`
 * (nor needs it: its write transaction holds the file's one write lock), so it never runs this.
 */
const lockRootOfPost = compiled<{ id: string }>()((db, p) =>
  db
    .selectFrom("posts")
    .select("id")
    .where("id", "=", (eb) =>
      eb.selectFrom("posts as post").select("post.thread_id").where("post.id", "=", p.value("id")),
    )
    .forUpdate(),
);
