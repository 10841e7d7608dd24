import { type Kysely, sql } from "kysely";
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
  const figures = await db
    .selectFrom("posts")
    .where("thread_id", "=", threadId)
    .select([
      sql<number>`coalesce(sum(case when status = 'published' then 1 else 0 end), 0)`.as("post_count"),
      sql<number>`coalesce(sum(case when status = 'published' and id <> thread_id then 1 else 0 end), 0)`.as(
        "reply_count",
      ),
      sql<number | null>`max(case when status = 'published' and quiet_reply = 0 then published_at end)`.as(
        "activity",
      ),
      sql<number | null>`max(case when status = 'published' then published_at end)`.as("updated"),
    ])
    .executeTakeFirstOrThrow();
  await db
    .updateTable("posts")
    .set((eb) => ({
      thread_post_count: Number(figures.post_count),
      thread_reply_count: Number(figures.reply_count),
      last_activity_at: figures.activity === null ? eb.ref("created_at") : Number(figures.activity),
      thread_updated_at: figures.updated === null ? eb.ref("created_at") : Number(figures.updated),
    }))
    .where("id", "=", threadId)
    .execute();
}

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
