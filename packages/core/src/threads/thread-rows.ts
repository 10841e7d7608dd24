import type { Kysely, Selectable } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database, PostsTable } from "../db/schema.js";
import type { PostRow } from "../posts/post-query.js";

/** A post row as stored. */
export type StoredPost = Selectable<PostsTable>;

/**
 * Which columns a read takes of each post row: `all`, or only what the reading view shows
 * (posts/post-view.ts `toPublicPostView`) and the read itself uses (keyset keys, the fold's
 * decision, readable parents, gap cursors): `reading` with `body_html` and `body_text`,
 * `readingMarkdown` with `body_markdown` instead (`content: "markdown"`). A row read with fewer
 * columns lacks the others; it is only for the reading view. Reading fewer columns is what makes
 * a public page cheaper: building each row's object costs per column.
 */
export type ReadColumns = "all" | "reading" | "readingMarkdown";

/** The columns of a reply in the reading view; a root's add the Thread's own values (see below). */
const readingReplyColumns = [
  "id",
  "format",
  "status",
  "slug",
  "title",
  "url",
  "source_name",
  "source_url",
  "quote_text",
  "summary",
  "rating",
  "reply_to_id",
  "thread_id",
  "language",
  "quiet_reply",
  "pinned_at",
  "featured_at",
  "published_at",
  "created_at",
  "updated_at",
  "permalink_path",
  "preview_kind",
  "preview_provider",
  "preview_image_url",
] as const satisfies readonly (keyof StoredPost)[];

/** A root's Thread values: a reply's are read from its root (see {@link asReplyRow}). */
const threadColumns = [
  "visibility",
  "thread_post_count",
  "thread_reply_count",
  "last_activity_at",
  "thread_updated_at",
] as const satisfies readonly (keyof StoredPost)[];

const bodyColumns = {
  reading: ["body_html", "body_text"],
  readingMarkdown: ["body_markdown"],
} as const satisfies Record<Exclude<ReadColumns, "all">, readonly (keyof StoredPost)[]>;

/** The columns of roots read with `columns`, undefined for all of them. */
export function rootColumns(columns: ReadColumns): readonly (keyof StoredPost)[] | undefined {
  return columns === "all" ? undefined : [...readingReplyColumns, ...threadColumns, ...bodyColumns[columns]];
}

/** The columns of replies read with `columns`, undefined for all of them. */
export function replyColumns(columns: ReadColumns): readonly (keyof StoredPost)[] | undefined {
  return columns === "all" ? undefined : [...readingReplyColumns, ...bodyColumns[columns]];
}

/** The columns a view of this kind reads. */
export function columnsFor(kind: "editing" | "reading", content: "markdown" | undefined): ReadColumns {
  return kind === "editing" ? "all" : content === "markdown" ? "readingMarkdown" : "reading";
}

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
