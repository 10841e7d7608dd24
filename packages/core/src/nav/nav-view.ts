import type { Selectable } from "kysely";
import type { NavItemsTable } from "../db/schema.js";
import type { SiteSettings } from "../deps.js";
import type { SystemKey } from "./nav-schemas.js";
import { systemItems } from "./system-items.js";

/** A stored nav item. */
export type StoredNavItem = Selectable<NavItemsTable>;

/** What a target item shows, read from its target when the list is read. */
export interface NavTarget {
  title: string;
  /** Site path of the target, before the site's path prefix. */
  path: string;
}

/**
 * A nav item. `label` is the stored label ("" follows the target); `displayLabel` is what a header
 * shows: the label, or the target's current title. A target item's `url` is its target's current
 * address. The target field of its type only (`systemKey`, `collectionId`, …) is present.
 * @see spec § Nav item, docs/navigation.md
 */
export interface NavItem {
  id: string;
  type: "link" | "system" | "collection" | "smart_collection" | "page";
  systemKey?: SystemKey;
  collectionId?: string;
  smartCollectionId?: string;
  postId?: string;
  label: string;
  displayLabel: string;
  url: string;
  position: string;
  createdAt: number;
  updatedAt: number;
}

/** The API object of a stored item; `target` is required for collection, smart_collection and page items. */
export function toNavItem(
  settings: Pick<SiteSettings, "sitePathPrefix">,
  row: StoredNavItem,
  target: NavTarget | undefined,
): NavItem {
  const type = row.type as NavItem["type"];
  const system = row.system_key ? systemItems[row.system_key as SystemKey] : undefined;
  const url =
    type === "link" ? (row.url ?? "") : `${settings.sitePathPrefix}${system?.path ?? target?.path ?? ""}`;
  const label = system?.label ?? row.label;
  return {
    id: row.id,
    type,
    ...(row.system_key ? { systemKey: row.system_key as SystemKey } : {}),
    ...(row.collection_id ? { collectionId: row.collection_id } : {}),
    ...(row.smart_collection_id ? { smartCollectionId: row.smart_collection_id } : {}),
    ...(row.post_id ? { postId: row.post_id } : {}),
    label,
    displayLabel: label === "" ? (target?.title ?? "") : label,
    url,
    position: row.position,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
