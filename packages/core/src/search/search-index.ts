import type { Kysely, SelectQueryBuilder } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database } from "../db/schema.js";
import { type SearchableFields, searchedFields, searchTextOf } from "./search-text.js";

/**
 * Brings one post's search row in line with the post as it now stands: a published post gets its
 * folded text (re)written, a draft or a missing post has none. Call it inside the write's
 * transaction, after the post row is written, passing the transaction as `db`. True when the post
 * has a search row now. On SQLite the trigram index reads the new row after the commit, in the
 * background (docs/search.md § SQLite: the index beside the file); until then searches scan it.
 */
export async function indexPost(db: Kysely<Database>, postId: string): Promise<boolean> {
  return writeSearchRow(db, postId, (await searchedColumns.executeTakeFirst(db, { postId })) ?? null);
}

/**
 * As {@link indexPost}, from the post's searched fields as the caller just wrote them (or null for
 * a post that is gone), so a write that holds them reads nothing back. The row is deleted and
 * inserted anew, never updated in place: on SQLite its new key is what tells the trigram index
 * thread to read it (docs/search.md).
 */
async function writeSearchRow(
  db: Kysely<Database>,
  postId: string,
  post: (SearchableFields & { status: string }) | null,
): Promise<boolean> {
  await deleteSearchRow.execute(db, { postId });
  if (post?.status !== "published") return false;
  await insertSearchRow.execute(db, { post_id: postId, search_text: searchTextOf(post) });
  return true;
}

type SearchedState = SearchableFields & { status: string };

/**
 * As {@link writeSearchRow}, for an update that holds the post's searched fields and status both
 * as they were (`before`, read under the Thread's lock) and as it wrote them (`after`): when the
 * search row would come out as it is, it writes nothing. That is an unpublished post's update (it
 * has no row, before or after) and a published post's update that leaves every searched field as
 * it was (a pin, a slug, a visibility, a feature). Every other update rewrites the row.
 */
export async function rewriteSearchRow(
  db: Kysely<Database>,
  postId: string,
  before: SearchedState,
  after: SearchedState,
): Promise<void> {
  const published = after.status === "published";
  if (published === (before.status === "published")) {
    if (!published) return;
    if (searchedFields.every((field) => before[field] === after[field])) return;
  }
  await writeSearchRow(db, postId, after);
}

// Compiled once (db/compiled.ts): an update of a post that changes what is searched deletes and
// inserts its search row; the read serves indexPost (the reindex).
const searchedColumns = compiled<{ postId: string }>()((db, p) =>
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
