import type { Kysely, Selectable } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database, PostsTable } from "../db/schema.js";
import type { PostRow } from "../posts/post-query.js";

/** A post row as stored. */
export type StoredPost = Selectable<PostsTable>;

/**
 * A root as a Thread list reads it: the row and whether its Thread is in any collection
 * (`in_collections`, 1 or 0), so a page whose Threads are in none skips reading their collections.
 */
export type ListedRoot = StoredPost & { in_collections: number };

/**
 * What a read may know of a row beyond its columns, to skip a query whose answer it already has
 * (absent: not known, so the query runs): a listed root's `in_collections`, and a fold reply's
 * `parent_draft` (1 when it answers a draft reply, so its readable parent must be looked up).
 */
export interface KnownFlags {
  in_collections?: number;
  parent_draft?: number;
}

/**
 * Roots only, aliased `r`. A root is the one post of a Thread without a parent
 * (`reply_to_id is null`), the predicate every Thread index is partial on.
 */
export function selectRoots(db: Kysely<Database>) {
  return db.selectFrom("posts as r").selectAll("r").where("r.reply_to_id", "is", null);
}

/**
 * A root row as a {@link PostRow}: a root's Thread values are its own. The freshly read row is
 * completed in place (list pages hold many wide rows; copying each costs more than the query).
 */
export function asRootRow(row: StoredPost): PostRow {
  return Object.assign(row, {
    root_visibility: row.visibility,
    root_status: row.status,
    root_post_count: row.thread_post_count,
    root_last_activity_at: row.last_activity_at,
    root_thread_updated_at: row.thread_updated_at,
  });
}

/** A reply row as a {@link PostRow}, its Thread values taken from the root in hand; completed in place. */
export function asReplyRow(row: StoredPost, root: PostRow): PostRow {
  return Object.assign(row, {
    root_visibility: root.root_visibility,
    root_status: root.root_status,
    root_post_count: root.root_post_count,
    root_last_activity_at: root.root_last_activity_at,
    root_thread_updated_at: root.root_thread_updated_at,
  });
}

/** The root of a Thread by its ID, or undefined. */
export async function findRoot(db: Kysely<Database>, threadId: string): Promise<PostRow | undefined> {
  const row = await rootById.executeTakeFirst(db, { id: threadId });
  return row && asRootRow(row);
}

/** Compiled once (db/compiled.ts). */
const rootById = compiled<{ id: string }>()((db, p) => selectRoots(db).where("r.id", "=", p.value("id")));
