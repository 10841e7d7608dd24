import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import { notFound } from "../errors.js";
import { findPost, type PostRow } from "../posts/post-query.js";

/** The root of the Thread post `id` belongs to (a root is its own): a Thread is translated as a whole. */
export async function rootOf(db: Kysely<Database>, id: string): Promise<PostRow> {
  const post = await findPost(db, id);
  const root = post && (post.id === post.thread_id ? post : await findPost(db, post.thread_id));
  if (!root) throw notFound("post", id);
  return root;
}
