import type { Kysely, Selectable } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Database, PostsTable } from "../db/schema.js";

/** A post row with the Thread-level values read through its root. */
export type PostRow = Selectable<PostsTable> & {
  root_visibility: string;
  root_status: string;
  root_post_count: number;
  root_last_activity_at: number;
  root_thread_updated_at: number;
};

/**
 * Selects posts joined to their root (one primary-key join), so a reply's visibility and the
 * Thread figures come with the row. Add `where`/`orderBy`/`limit` and execute.
 */
export function selectPosts(db: Kysely<Database>) {
  return db
    .selectFrom("posts as p")
    .innerJoin("posts as r", "r.id", "p.thread_id")
    .selectAll("p")
    .select([
      "r.visibility as root_visibility",
      "r.status as root_status",
      "r.thread_post_count as root_post_count",
      "r.last_activity_at as root_last_activity_at",
      "r.thread_updated_at as root_thread_updated_at",
    ]);
}

/** One post by ID with its root values, or undefined. */
export async function findPost(db: Kysely<Database>, id: string): Promise<PostRow | undefined> {
  return postById.executeTakeFirst(db, { id });
}

/** Compiled once (db/compiled.ts): the most frequent read of a post, on reads and writes alike. */
const postById = compiled<{ id: string }>()((db, p) => selectPosts(db).where("p.id", "=", p.value("id")));

/**
 * The post a reader names by slug, with its root values, when readers may see it: published, in a
 * Thread whose root is published and not private (latest-hidden is readable); else undefined.
 * @see spec § States (visibility read rules)
 */
export async function findReadablePost(db: Kysely<Database>, slug: string): Promise<PostRow | undefined> {
  return readablePostBySlug.executeTakeFirst(db, { slug });
}

/** {@link findReadablePost} by the post's ID: a resolved address names its owner by ID. */
export async function findReadablePostById(db: Kysely<Database>, id: string): Promise<PostRow | undefined> {
  return readablePostById.executeTakeFirst(db, { id });
}

/** Compiled once: every public read of a post or a Thread by slug starts with it. */
const readablePostBySlug = compiled<{ slug: string }>()((db, p) =>
  readable(selectPosts(db).where("p.slug", "=", p.value("slug"))),
);

/** Compiled once: every resolved post address starts with it. */
const readablePostById = compiled<{ id: string }>()((db, p) =>
  readable(selectPosts(db).where("p.id", "=", p.value("id"))),
);

/** What a reader may see, as conditions on the post `p` and its root `r`: the visibility read rules. */
function readable(query: ReturnType<typeof selectPosts>) {
  return query
    .where("p.status", "=", "published")
    .where("r.status", "=", "published")
    .where("r.visibility", "<>", "private");
}
