import type { Kysely } from "kysely";

/**
 * Smart collections (rule-based Thread selections with an address in the root namespace) and the
 * header navigation items.
 * - `smart_collections.slug` is unique here too, behind the `site_addresses` claim that decides
 *   between writers; `selection` is the normalised conditions as JSON text.
 * - `nav_items.position` is a fractional ordering key, unique so two writers cannot both take one
 *   place (writers queue on the lock row of the next migration); `system_key` is unique among
 *   system items, so each built-in item exists once. The target columns are plain IDs: an item
 *   whose target is gone is left out on read.
 * @see docs/smart-collections.md, docs/navigation.md
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("smart_collections")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("selection", "text", (c) => c.notNull())
    .addColumn("sort_order", "text", (c) => c.notNull())
    .addColumn("layout", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("nav_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("system_key", "text")
    .addColumn("collection_id", "text")
    .addColumn("smart_collection_id", "text")
    .addColumn("post_id", "text")
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("url", "text")
    .addColumn("position", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("nav_items_position").on("nav_items").column("position").unique().execute();
  await db.schema
    .createIndex("nav_items_system_key")
    .on("nav_items")
    .column("system_key")
    .unique()
    .where("system_key", "is not", null)
    .execute();
}
