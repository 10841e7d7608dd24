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
  ctx: Pick<EngineContext, "db">,
  postId: string,
): Promise<string | undefined> {
  return (await lockRootOfPost.executeTakeFirst(ctx.db, { id: postId }))?.id;
}

/**
 * The root of the post's Thread, read as a locking read (db/dialect.ts `lockingRead`): one
 * statement, a round trip on PostgreSQL, where it is `FOR UPDATE`. The root's ID comes from a
 * subquery run once, before the lock (a post's Thread never changes); a root deleted while this
 * waits for its lock gives no row, as `lockRow` locks nothing when the row is missing. On SQLite
 * it is a plain read: the write transaction already holds the file's one write lock.
 */
const lockRootOfPost = compiled<{ id: string }>()((db, p) =>
  p.dialect.lockingRead(
    db
      .selectFrom("posts")
      .select("id")
      .where("id", "=", (eb) =>
        eb.selectFrom("posts as post").select("post.thread_id").where("post.id", "=", p.value("id")),
      ),
  ),
);
