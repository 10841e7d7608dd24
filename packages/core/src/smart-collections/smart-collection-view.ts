import type { Selectable } from "kysely";
import type { SmartCollectionsTable } from "../db/schema.js";
import type { Selection, SmartCollectionSortOrder } from "./smart-collection-schemas.js";

/** A smart collection row as stored. */
export type SmartCollectionRow = Selectable<SmartCollectionsTable>;

/** A smart collection. @see spec § Smart collection */
export interface SmartCollection {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  selection: Selection;
  sortOrder: SmartCollectionSortOrder;
  /** null follows the site's archive layout (kept null here; see docs/smart-collections.md). */
  layout: "list" | "grid" | null;
  createdAt: number;
  updatedAt: number;
}

/** A smart collection in a list, with its figures for the caller. */
export interface SmartCollectionListItem extends SmartCollection {
  threadCount: number;
  recentActivityAt: number;
}

/** The stored conditions of a row. */
export function selectionOf(row: Pick<SmartCollectionRow, "selection">): Selection {
  return JSON.parse(row.selection) as Selection;
}

/** The API object of a row. */
export function toSmartCollection(row: SmartCollectionRow): SmartCollection {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    selection: selectionOf(row),
    sortOrder: row.sort_order as SmartCollectionSortOrder,
    layout: row.layout as SmartCollection["layout"],
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
