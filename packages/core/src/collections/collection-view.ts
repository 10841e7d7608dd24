import type { Selectable } from "kysely";
import type { CollectionsTable, DirectoryItemsTable } from "../db/schema.js";
import type { CollectionSortOrder } from "./collection-schemas.js";

/** A collection as the API returns it. @see spec § Collection */
export interface CollectionView {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  sortOrder: CollectionSortOrder;
  createdAt: number;
  updatedAt: number;
}

/** A collection in list responses: with its figures for the caller. */
export interface CollectionListItem extends CollectionView {
  threadCount: number;
  recentActivityAt: number;
}

/** A directory entry as the API returns it. @see spec § Directory item */
export interface DirectoryItemView {
  /** null for a collection or smart collection that has no item yet (appended, unplaced). */
  id: string | null;
  type: "collection" | "smart_collection" | "divider" | "link";
  collectionId: string | null;
  smartCollectionId: string | null;
  label: string | null;
  url: string | null;
  description: string | null;
  /** null for an unplaced entry. */
  position: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A stored collection row as the API object. */
export function toCollectionView(row: Selectable<CollectionsTable>): CollectionView {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    sortOrder: row.sort_order as CollectionSortOrder,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** A stored directory item as the API object. */
export function toDirectoryItemView(row: Selectable<DirectoryItemsTable>): DirectoryItemView {
  return {
    id: row.id,
    type: row.type as DirectoryItemView["type"],
    collectionId: row.collection_id,
    smartCollectionId: row.smart_collection_id,
    label: row.label,
    url: row.url,
    description: row.description,
    position: row.position,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
