import type { Kysely, SelectQueryBuilder } from "kysely";
import type { Database } from "../db/schema.js";
import { searchTextOf } from "./search-text.js";

/**
 * Brings one post's search row in line with the post as it now stands: a published post gets its
 * folded text (re)written, a draft or a missing post has none. Call it inside the write's
 * transaction, after the post row is written, passing the transaction as `db`. True when the post
 * has a search row now. On SQLite the trigram index reads the new row after the commit, in the
 * background (docs/search.md § SQLite: the index beside the file); until then searches scan it.
 */
export async function indexPost(db: Kysely<Database>, postId: string): Promise<boolean> {
  const post = await db
    .selectFrom("posts")
    .select(["status", "title", "source_name", "quote_text", "body_text", "summary", "url", "source_url"])
    .where("id", "=", postId)
    .executeTakeFirst();
  await db.deleteFrom("post_search").where("post_id", "=", postId).execute();
  if (post?.status !== "published") return false;
  await db
    .insertInto("post_search")
    .values({ post_id: postId, search_text: searchTextOf(post) })
    .execute();
  return true;
}

/** Removes the search rows of the posts a query selects (by `id`); for deletes, in their transaction. */
export async function unindexPosts(
  db: Kysely<Database>,
  postIds: SelectQueryBuilder<Database, "posts", { id: string }>,
): Promise<void> {
  await db.deleteFrom("post_search").where("post_id", "in", postIds).execute();
}
