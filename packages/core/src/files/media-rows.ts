import type { Kysely, Selectable } from "kysely";
import type { IdSet } from "../db/id-set.js";
import type { Database, MediaTable } from "../db/schema.js";

/** A media row as read: an uploaded file or a text attachment. */
export type MediaRow = Selectable<MediaTable>;

/** Every storage key a media row owns (file, poster, preview). */
export function storedKeysOf(row: Pick<MediaRow, "storage_key" | "poster_key" | "preview_key">): string[] {
  return [row.storage_key, row.poster_key, row.preview_key].filter((key): key is string => key !== null);
}

/** Alt text as stored: trimmed, empty clears to null. */
export function normalizeAlt(alt: string | null): string | null {
  const trimmed = alt?.trim() ?? "";
  return trimmed === "" ? null : trimmed;
}

/**
 * Deletes media rows and returns the storage keys they owned; the caller deletes those with
 * `deleteStoredKeys` once its transaction has committed.
 */
export async function deleteMediaRows(
  db: Kysely<Database>,
  rows: Pick<MediaRow, "id" | "storage_key" | "poster_key" | "preview_key">[],
): Promise<string[]> {
  if (rows.length === 0) return [];
  await db
    .deleteFrom("media")
    .where(
      "id",
      "in",
      rows.map((row) => row.id),
    )
    .execute();
  return rows.flatMap(storedKeysOf);
}

/** Deletes every media row attached to the given posts; returns their storage keys, as {@link deleteMediaRows}. */
export async function deleteMediaOfPosts(db: Kysely<Database>, postIds: IdSet): Promise<string[]> {
  const rows = await db
    .selectFrom("media")
    .select(["id", "storage_key", "poster_key", "preview_key"])
    .where("post_id", "in", postIds)
    .execute();
  await db.deleteFrom("media").where("post_id", "in", postIds).execute();
  return rows.flatMap(storedKeysOf);
}
