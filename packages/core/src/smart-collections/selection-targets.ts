import type { Kysely } from "kysely";
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
  const found = await db
    .selectFrom("collections")
    .select("id")
    .where("id", "=", collectionId)
    .executeTakeFirst();
  if (!found) throw invalidField("selection.collection", `Unknown collection ${collectionId}`);
}
