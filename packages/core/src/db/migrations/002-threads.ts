import type { CreateIndexBuilder, Kysely } from "kysely";

/**
 * Indexes for the Thread lists. Every one is partial on root rows (`reply_to_id is null`: only a
 * root has no parent), so replies add nothing to them. Each list order walks one of these by keyset
 * from its cursor, never by OFFSET:
 * - `activity`: pinned roots (a tiny partial index), then the rest by `last_activity_at`;
 * - `published` / `oldest`: `published_at` (drafts: `created_at`); featured roots have their own;
 * - `updated`: `thread_updated_at`; `rating`: `rating` then `last_activity_at`.
 * The `(status, visibility, …)` variants serve one-visibility lists (the homepage's `public`,
 * `hidden`, `private`); the `(status, …)` variants serve lists of several visibilities.
 * @see docs/threads.md § Indexes
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const rootIndex = (name: string, columns: string[]) =>
    db.schema.createIndex(name).on("posts").columns(columns).where("reply_to_id", "is", null);
  const indexes: CreateIndexBuilder[] = [
    rootIndex("threads_activity", ["status", "visibility", "last_activity_at", "id"]).where(
      "pinned_at",
      "is",
      null,
    ),
    rootIndex("threads_activity_any", ["status", "last_activity_at", "id"]).where("pinned_at", "is", null),
    rootIndex("threads_pinned", ["status", "last_activity_at", "id"]).where("pinned_at", "is not", null),
    rootIndex("threads_published", ["status", "visibility", "published_at", "id"]),
    rootIndex("threads_published_any", ["status", "published_at", "id"]),
    rootIndex("threads_featured", ["status", "published_at", "id"]).where("featured_at", "is not", null),
    rootIndex("threads_updated", ["status", "thread_updated_at", "id"]),
    rootIndex("threads_rating", ["status", "rating", "last_activity_at", "id"]),
    rootIndex("threads_created", ["status", "created_at", "id"]),
  ];
  for (const index of indexes) await index.execute();
  // A Thread's posts of one status in Thread order: the posts list, and the folds of a whole page
  // read from this index alone (`id <> thread_id` leaves the root out without a table lookup). Two
  // equality columns also keep SQLite's planner off the `(status, …)` indexes without statistics.
  await db.schema
    .createIndex("posts_thread_status")
    .on("posts")
    .columns(["thread_id", "status", "created_at", "id"])
    .execute();
}
