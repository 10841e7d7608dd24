import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import { invalidField } from "../errors.js";

/**
 * Checks the collections a root names. No collection exists until the collections resource lands,
 * so any named collection is unknown: 400 rather than a silent drop.
 */
export async function checkCollectionInput(
  _db: Kysely<Database>,
  input: { collectionIds?: string[] | undefined; collectionEntries?: { collectionId: string }[] | undefined },
): Promise<void> {
  const named = input.collectionEntries?.map((entry) => entry.collectionId) ?? input.collectionIds ?? [];
  if (named.length > 0) throw invalidField("collectionIds", `Unknown collection ${named[0]}`);
}
