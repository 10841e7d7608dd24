import type { Kysely } from "kysely";

/** Posts (with Thread figures on roots), media, the address namespace, custom URLs, tokens, settings. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("posts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("format", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("visibility", "text", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("title", "text")
    .addColumn("url", "text")
    .addColumn("source_name", "text")
    .addColumn("source_url", "text")
    .addColumn("quote_text", "text")
    .addColumn("summary", "text")
    .addColumn("rating", "integer")
    .addColumn("display_title", "text", (c) => c.notNull())
    .addColumn("body", "text")
    .addColumn("body_html", "text")
    .addColumn("body_text", "text")
    .addColumn("body_markdown", "text")
    .addColumn("reply_to_id", "text")
    .addColumn("thread_id", "text", (c) => c.notNull())
    .addColumn("language", "text")
    .addColumn("quiet_reply", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("pinned_at", "bigint")
    .addColumn("featured_at", "bigint")
    .addColumn("published_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("thread_post_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("thread_reply_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_activity_at", "bigint", (c) => c.notNull())
    .addColumn("thread_updated_at", "bigint", (c) => c.notNull())
    .addColumn("media_kinds", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("permalink_path", "text")
    .addColumn("preview_kind", "text")
    .addColumn("preview_provider", "text")
    .addColumn("preview_image_url", "text")
    .execute();

  // GET /api/posts: published by publishedAt then id, drafts by updatedAt; optional format filter.
  await db.schema
    .createIndex("posts_published")
    .on("posts")
    .columns(["status", "published_at", "id"])
    .execute();
  await db.schema.createIndex("posts_updated").on("posts").columns(["status", "updated_at", "id"]).execute();
  await db.schema
    .createIndex("posts_format_published")
    .on("posts")
    .columns(["format", "status", "published_at", "id"])
    .execute();
  // A Thread's posts in Thread order (root first by construction: it is created first).
  await db.schema
    .createIndex("posts_thread")
    .on("posts")
    .columns(["thread_id", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("media")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("post_id", "text")
    .addColumn("position", "integer")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("media_kind", "text", (c) => c.notNull())
    .addColumn("mime_type", "text", (c) => c.notNull())
    .addColumn("original_name", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("width", "integer")
    .addColumn("height", "integer")
    .addColumn("duration_seconds", "double precision")
    .addColumn("alt", "text")
    .addColumn("blurhash", "text")
    .addColumn("waveform", "text")
    .addColumn("summary", "text")
    .addColumn("chars", "integer")
    .addColumn("text_content", "text")
    .addColumn("storage_key", "text", (c) => c.notNull())
    .addColumn("poster_key", "text")
    .addColumn("preview_key", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("media_post").on("media").columns(["post_id", "position"]).execute();
  await db.schema.createIndex("media_created").on("media").columns(["created_at", "id"]).execute();

  await db.schema
    .createTable("site_addresses")
    .addColumn("path", "text", (c) => c.primaryKey())
    .addColumn("owner_type", "text", (c) => c.notNull())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("site_addresses_owner").on("site_addresses").columns(["owner_id"]).execute();

  await db.schema
    .createTable("custom_urls")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("path", "text", (c) => c.notNull().unique())
    .addColumn("target_type", "text", (c) => c.notNull())
    .addColumn("target_id", "text")
    .addColumn("to_path", "text")
    .addColumn("redirect_type", "integer")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("custom_urls_target")
    .on("custom_urls")
    .columns(["target_id", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("api_tokens")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_used_at", "bigint")
    .execute();

  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
}
