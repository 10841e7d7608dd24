import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import { notFound } from "../errors.js";
import { findPost, findReadablePost, type PostRow } from "../posts/post-query.js";
import { readableVersionIn } from "../posts/translation-group.js";
import { findRoot } from "./thread-rows.js";

/** The root of the Thread a post (root or reply) belongs to, any status or visibility; 404 when absent. */
export async function findOwnerThread(db: Kysely<Database>, postId: string): Promise<PostRow> {
  const named = await findPost(db, postId);
  const root = named && (named.id === named.thread_id ? named : await findRoot(db, named.thread_id));
  if (!root) throw notFound("post", postId);
  return root;
}

/**
 * The root of the Thread a published post names by slug, for readers: a draft post, or any post
 * of a draft or private Thread, is a 404; a latest-hidden Thread is readable.
 * @see spec § States (visibility read rules)
 */
export async function findPublicThread(db: Kysely<Database>, slug: string): Promise<PostRow> {
  const named = await findReadablePost(db, slug);
  const root = named && (named.id === named.thread_id ? named : await findRoot(db, named.thread_id));
  if (!root) throw notFound("post", slug);
  return root;
}

/**
 * {@link findPublicThread} in a language view: when `lang` is given and the Thread has a readable
 * version in that language (its translation group), that version's root; else the Thread's own.
 * @see docs/languages.md § Reading in a language
 */
export async function findPublicThreadIn(
  db: Kysely<Database>,
  slug: string,
  lang: string | undefined,
): Promise<PostRow> {
  const root = await findPublicThread(db, slug);
  const version = lang === undefined ? undefined : await readableVersionIn(db, root, lang);
  return (version && (await findPost(db, version))) || root;
}
