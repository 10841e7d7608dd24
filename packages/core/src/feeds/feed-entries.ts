import type { Kysely, Selectable } from "kysely";
import type { Database, PostsTable } from "../db/schema.js";
import type { RootScope } from "../threads/thread-filter.js";
import { selectRoots } from "../threads/thread-rows.js";

/** The columns a feed entry is written from. */
export type FeedRow = Pick<
  Selectable<PostsTable>,
  | "id"
  | "slug"
  | "permalink_path"
  | "title"
  | "display_title"
  | "summary"
  | "body_html"
  | "url"
  | "language"
  | "published_at"
  | "updated_at"
>;

/** Which Threads a feed lists. */
export type FeedSelection =
  | { kind: "latest" }
  | { kind: "featured" }
  | { kind: "collection"; collectionId: string };

/**
 * A feed's entries: the roots of published Threads the selection names, newest publication first
 * (then ID), at most `limit`, published at or before `cutoff` (now − RSS_PUBLISH_DELAY_SECONDS).
 * `latest` is the homepage's Threads (`public` only: latest-hidden ones are left out), `featured`
 * and `collection` every non-private one. One query, on the roots' publication order.
 */
export async function feedEntries(
  db: Kysely<Database>,
  selection: FeedSelection,
  options: { limit: number; cutoff: number },
): Promise<FeedRow[]> {
  let query = selectRoots(db)
    .where("r.status", "=", "published")
    .where("r.published_at", "is not", null)
    .where("r.published_at", "<=", options.cutoff);
  if (selection.kind === "latest") query = query.where("r.visibility", "=", "public");
  else query = query.where("r.visibility", "<>", "private");
  if (selection.kind === "featured") query = query.where("r.featured_at", "is not", null);
  if (selection.kind === "collection") {
    const { collectionId } = selection;
    query = query.where((eb: RootScope) =>
      eb(
        "r.id",
        "in",
        eb
          .selectFrom("collection_threads as m")
          .select("m.thread_id")
          .where("m.collection_id", "=", collectionId),
      ),
    );
  }
  const rows = await query
    .orderBy("r.published_at", "desc")
    .orderBy("r.id", "desc")
    .limit(options.limit)
    .execute();
  return rows;
}
