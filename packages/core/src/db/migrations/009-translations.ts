import type { Kysely } from "kysely";

/**
 * Translation groups: Thread roots written in different languages, linked as versions of one
 * another. A root's group is a column of its row; replies never carry one. The partial unique index
 * is what keeps a group to one post per language, under concurrent writers too: two links that
 * would bring a second post of one language into a group cannot both commit.
 * @see docs/languages.md § Translation groups
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("posts").addColumn("translation_group_id", "text").execute();
  await db.schema
    .createIndex("posts_translation_language")
    .on("posts")
    .columns(["translation_group_id", "language"])
    .unique()
    .where("translation_group_id", "is not", null)
    .execute();
}
