import { type Kysely, sql } from "kysely";

/**
 * Collections, their Thread memberships, their per-language figures, and the collection directory.
 * - `collection_threads` is keyed by the Thread's ROOT id; it carries a copy of the root's status,
 *   language and activity (kept by `collections/memberships.ts` in the post write's transaction),
 *   so the per-collection figures can be recomputed from this table's own index.
 * - `collection_figures` holds, per collection and language ('' for none), the published Threads
 *   and their newest activity: GET /api/collections reads a few rows per collection, never the posts.
 * - `directory_items` orders the directory by fractional `position` keys; `directory_lock` is one
 *   row every directory write locks first, so concurrent writers never pick the same key.
 * @see docs/collections.md
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("collections")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("sort_order", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("collection_threads")
    .addColumn("collection_id", "text", (c) => c.notNull())
    .addColumn("thread_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("position", "text")
    .addColumn("pinned_at", "bigint")
    .addColumn("thread_status", "text", (c) => c.notNull())
    .addColumn("thread_language", "text", (c) => c.notNull())
    .addColumn("thread_activity_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("collection_threads_pk", ["collection_id", "thread_id"])
    .execute();
  // A Thread's collections (collectionIds, the Thread list's filter, keeping copies in step).
  await db.schema
    .createIndex("collection_threads_thread")
    .on("collection_threads")
    .columns(["thread_id", "collection_id"])
    .execute();
  // Recomputing one collection's figures reads only this index.
  await db.schema
    .createIndex("collection_threads_figures")
    .on("collection_threads")
    .columns(["collection_id", "thread_status", "thread_language", "thread_activity_at"])
    .execute();

  await db.schema
    .createTable("collection_figures")
    .addColumn("collection_id", "text", (c) => c.notNull())
    .addColumn("language", "text", (c) => c.notNull())
    .addColumn("thread_count", "integer", (c) => c.notNull())
    .addColumn("recent_activity_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("collection_figures_pk", ["collection_id", "language"])
    .execute();

  await db.schema
    .createTable("directory_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("collection_id", "text", (c) => c.unique())
    .addColumn("smart_collection_id", "text", (c) => c.unique())
    .addColumn("label", "text")
    .addColumn("url", "text")
    .addColumn("description", "text")
    .addColumn("position", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  // A collection list in the activity order lifts the collection's pins, not the site's, so it walks
  // every root by activity: the site lists' activity indexes are split by the site-wide pin.
  await db.schema
    .createIndex("threads_activity_all")
    .on("posts")
    .columns(["status", "last_activity_at", "id"])
    .where(sql.ref("reply_to_id"), "is", null)
    .execute();

  await db.schema
    .createTable("directory_lock")
    .addColumn("id", "text", (c) => c.primaryKey())
    .execute();
  await sql`insert into directory_lock (id) values ('directory')`.execute(db);
}
