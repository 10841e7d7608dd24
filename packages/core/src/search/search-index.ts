import type { Kysely, SelectQueryBuilder } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database } from "../db/schema.js";
import { type SearchableFields, searchTextOf } from "./search-text.js";

/**
 * Brings one post's search row in line with the post as it now stands: a published post gets its
 * folded text (re)written, a draft or a missing post has none. Call it inside the write's
 * transaction, after the post row is written, passing the transaction as `db`. True when the post
 * has a search row now. On SQLite the trigram index reads the new row after the commit, in the
 * background (docs/search.md § SQLite: the index beside the file); until then searches scan it.
 */
export async function indexPost(db: Kysely<Database>, postId: string): Promise<boolean> {
  return writeSearchRow(db, postId, (await searchedFields.executeTakeFirst(db, { postId })) ?? null);
}

/**
 * As {@link indexPost}, from the post's searched fields as the caller just wrote them (or null for
 * a post that is gone), so a write that holds them reads nothing back. The row is deleted and
 * inserted anew, never updated in place: on SQLite its new key is what tells the trigram index
 * thread to read it (docs/search.md).
 */
export async function writeSearchRow(
  db: Kysely<Database>,
  postId: string,
  post: (SearchableFields & { status: string }) | null,
): Promise<boolean> {
  await deleteSearchRow.execute(db, { postId });
  if (post?.status !== "published") return false;
  await insertSearchRow.execute(db, { post_id: postId, search_text: searchTextOf(post) });
  return true;
}

// Compiled once (db/compiled.ts): every update of a post deletes and inserts its search row; the
// read serves indexPost (the reindex).
const searchedFields = compiled<{ postId: string }>()((db, p) =>
  db
    .selectFrom("posts")
    .select(["status", "title", "source_name", "quote_text", "body_text", "summary", "url", "source_url"])
    .where("id", "=", p.value("postId")),
);

const deleteSearchRow = compiled<{ postId: string }>()((db, p) =>
  db.deleteFrom("post_search").where("post_id", "=", p.value("postId")),
);

/** One post's search row: its ID and folded text. Compiled once; a create writes it too. */
export const insertSearchRow = compiled<{ post_id: string; search_text: string }>()((db, p) =>
  db.insertInto("post_search").values({ post_id: p.value("post_id"), search_text: p.value("search_text") }),
);

/** Removes the search rows of the posts a query selects (by `id`); for deletes, in their transaction. */
export async function unindexPosts(
  db: Kysely<Database>,
  postIds: SelectQueryBuilder<Database, "posts", { id: string }>,
): Promise<void> {
  await db.deleteFrom("post_search").where("post_id", "in", postIds).execute();
}
