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
  const figures = await threadFigures.executeTakeFirst(db, { threadId });
  await storeThreadFigures.execute(db, {
    threadId,
    postCount: Number(figures?.post_count ?? 0),
    replyCount: Number(figures?.reply_count ?? 0),
    activity: figures?.activity == null ? null : Number(figures.activity),
    updated: figures?.updated == null ? null : Number(figures.updated),
  });
}

/** A Thread's figures counted from its posts; compiled once (db/compiled.ts), as every write to a Thread runs it. */
const threadFigures = compiled<{ threadId: string }>()((db, p) =>
  db
    .selectFrom("posts")
    .where("thread_id", "=", p.value("threadId"))
    .select([
      sql<number>`coalesce(sum(case when status = 'published' then 1 else 0 end), 0)`.as("post_count"),
      sql<number>`coalesce(sum(case when status = 'published' and id <> thread_id then 1 else 0 end), 0)`.as(
        "reply_count",
      ),
      sql<number | null>`max(case when status = 'published' and quiet_reply = 0 then published_at end)`.as(
        "activity",
      ),
      sql<number | null>`max(case when status = 'published' then published_at end)`.as("updated"),
    ]),
);

/**
 * Stores the figures on the root; a Thread with nothing published takes its root's creation time.
 * A root whose figures are already these is left alone: SQLite rewrites the entry of every index
 * on a written column even when its value stays, and the activity times are in four of the Thread
 * list's indexes (an edit of a post's body, say, changes no figure). The reply count moves only
 * with the post count; it is compared too, so that a stored count that disagrees is put right.
 */
const storeThreadFigures = compiled<{
  threadId: string;
  postCount: number;
  replyCount: number;
  activity: number | null;
  updated: number | null;
}>()((db, p) =>
  db
    .updateTable("posts")
    .set((eb) => ({
      thread_post_count: p.value("postCount"),
      thread_reply_count: p.value("replyCount"),
      last_activity_at: eb.fn.coalesce(eb.val(p.value("activity")), eb.ref("created_at")),
      thread_updated_at: eb.fn.coalesce(eb.val(p.value("updated")), eb.ref("created_at")),
    }))
    .where("id", "=", p.value("threadId"))
    .where((eb) =>
      eb.or([
        eb("thread_post_count", "is distinct from", p.value("postCount")),
        eb("thread_reply_count", "is distinct from", p.value("replyCount")),
        eb(
          "last_activity_at",
          "is distinct from",
          eb.fn.coalesce(eb.val(p.value("activity")), eb.ref("created_at")),
        ),
        eb(
          "thread_updated_at",
          "is distinct from",
          eb.fn.coalesce(eb.val(p.value("updated")), eb.ref("created_at")),
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
