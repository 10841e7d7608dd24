import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import { notFound } from "../errors.js";
import type { SmartCollectionRow } from "./smart-collection-view.js";

/** One smart collection by ID, or a 404. */
export async function findSmartCollection(db: Kysely<Database>, id: string): Promise<SmartCollectionRow> {
  return db
    .selectFrom("smart_collections")
    .selectAll()
    .where("id", "=", id)
    .executeTakeFirstOrThrow(() => notFound("smart collection", id));
}

/** Every smart collection in creation order. */
export function listSmartCollectionRows(db: Kysely<Database>): Promise<SmartCollectionRow[]> {
  return db.selectFrom("smart_collections").selectAll().orderBy("created_at").orderBy("id").execute();
}
