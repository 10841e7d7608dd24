import { type Kysely, sql } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database } from "../db/schema.js";
import { mediaKindBits } from "../files/media-kinds.js";

/**
 * Recomputes a Thread's figures from its posts and stores them on the root row, inside the write's
 * transaction, so list reads never aggregate replies. Activity is the newest publication time of a
 * published post (quiet replies excluded for `last_activity_at`, included for
 * `thread_updated_at`); a Thread with nothing published falls back to its root's creation time.
 * @see spec § Post (Thread fields)
 */
export async function refreshThreadFigures(db: Kysely<Database>, threadId: string): Promise<void> {
  await storeThreadFigures.execute(db, { threadId });
}

/**
 * The figures counted from the Thread's posts and stored on its root, in one statement (one round
 * trip on PostgreSQL); compiled once (db/compiled.ts), as every write to a Thread runs it. A
 * Thread with nothing published takes its root's creation time. A root whose figures are already
 * these is left alone: SQLite rewrites the entry of every index on a written column even when its
 * value stays, and the activity times are in four of the Thread list's indexes (an edit of a
 * post's body, say, changes no figure). The reply count moves only with the post count; it is
 * compared too, so that a stored count that disagrees is put right.
 */
const storeThreadFigures = compiled<{ threadId: string }>()((db, p) =>
  db
    .updateTable("posts as root")
    .from((eb) =>
      eb
        .selectFrom("posts")
        .where("thread_id", "=", p.value("threadId"))
        .select([
          sql<number>`coalesce(sum(case when status = 'published' then 1 else 0 end), 0)`.as("post_count"),
          sql<number>`coalesce(sum(case when status = 'published' and id <> thread_id then 1 else 0 end), 0)`.as(
            "reply_count",
          ),
          sql<
            number | null
          >`max(case when status = 'published' and quiet_reply = 0 then published_at end)`.as("activity"),
          sql<number | null>`max(case when status = 'published' then published_at end)`.as("updated"),
        ])
        .as("counted"),
    )
    .set((eb) => ({
      thread_post_count: eb.ref("counted.post_count"),
      thread_reply_count: eb.ref("counted.reply_count"),
      last_activity_at: eb.fn.coalesce("counted.activity", "root.created_at"),
      thread_updated_at: eb.fn.coalesce("counted.updated", "root.created_at"),
    }))
    .where("root.id", "=", p.value("threadId"))
    .where((eb) =>
      eb.or([
        eb("root.thread_post_count", "is distinct from", eb.ref("counted.post_count")),
        eb("root.thread_reply_count", "is distinct from", eb.ref("counted.reply_count")),
        eb(
          "root.last_activity_at",
          "is distinct from",
          eb.fn.coalesce("counted.activity", "root.created_at"),
        ),
        eb(
          "root.thread_updated_at",
          "is distinct from",
          eb.fn.coalesce("counted.updated", "root.created_at"),
        ),
      ]),
    ),
);

/**
 * Stores the kinds of a Thread root's attachments as the bit set the Thread list's `media` filter
 * reads; a reply's kinds are not kept.
 */
export async function storeRootMediaKinds(
  db: Kysely<Database>,
  postId: string,
  kinds: Iterable<string>,
): Promise<void> {
  await db
    .updateTable("posts")
    .set({ media_kinds: mediaKindBits(kinds) })
    .where("id", "=", postId)
    .whereRef("id", "=", "thread_id")
    .execute();
}
