import type { Kysely, Selectable } from "kysely";
import type { Database, PostsTable } from "../db/schema.js";

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
  return feedQuery(db, selection, options).selectAll("r").execute();
}

/**
 * The IDs and languages of a feed's entries, in feed order: the same selection, order and limit as
 * {@link feedEntries}, without the wide columns (discovery asks which posts a feed lists).
 */
export async function feedEntryIds(
  db: Kysely<Database>,
  selection: FeedSelection,
  options: { limit: number; cutoff: number },
): Promise<{ id: string; language: string | null }[]> {
  return feedQuery(db, selection, options).select(["r.id", "r.language"]).execute();
}

/** The feed's rules, once: which roots a selection lists, in what order, how many. */
function feedQuery(
  db: Kysely<Database>,
  selection: FeedSelection,
  options: { limit: number; cutoff: number },
) {
  let query = db
    .selectFrom("posts as r")
    .where("r.reply_to_id", "is", null)
    .where("r.status", "=", "published")
    .where("r.published_at", "is not", null)
    .where("r.published_at", "<=", options.cutoff);
  if (selection.kind === "latest") query = query.where("r.visibility", "=", "public");
  else query = query.where("r.visibility", "<>", "private");
  if (selection.kind === "featured") query = query.where("r.featured_at", "is not", null);
  if (selection.kind === "collection") {
    const { collectionId } = selection;
    query = query.where((eb) =>
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
  return query.orderBy("r.published_at", "desc").orderBy("r.id", "desc").limit(options.limit);
}
