import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.js";
import { invalidField } from "../errors.js";
import type { Selection } from "./smart-collection-schemas.js";

/**
 * A selection may only name a collection that exists when it is written or previewed (400 on
 * `selection.collection` otherwise), so a typo is caught; a collection deleted later leaves the
 * condition in place, and it matches nothing. @see docs/smart-collections.md § Selection
 */
export async function checkSelectionTargets(db: Kysely<Database>, selection: Selection): Promise<void> {
  const [collectionId] = selection.collection ?? [];
  if (collectionId === undefined) return;
  // Raw until the collections resource's table is in the typed schema.
  const found = await sql<{ id: string }>`select id from collections where id = ${collectionId}`.execute(db);
  if (found.rows.length === 0)
    throw invalidField("selection.collection", `Unknown collection ${collectionId}`);
}
