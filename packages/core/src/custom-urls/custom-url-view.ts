import type { Selectable } from "kysely";
import type { CustomUrlsTable } from "../db/schema.js";
import type { CustomUrlTargetType } from "./custom-url-schemas.js";

/** A stored custom URL row. */
export type CustomUrlRow = Selectable<CustomUrlsTable>;

/** The API view of a custom URL. @see spec § Custom URL */
export interface CustomUrl {
  id: string;
  /** With its leading slash; without the site path prefix. */
  path: string;
  targetType: CustomUrlTargetType;
  /** The post or collection ID of an alias; null on a redirect. */
  targetId: string | null;
  /** A redirect's destination: an on-site path with its leading slash, or an absolute URL. */
  toPath: string | null;
  redirectType: 301 | 302 | null;
  createdAt: number;
}

/** A stored custom URL → its API view. */
export function toCustomUrlView(row: CustomUrlRow): CustomUrl {
  const isRedirect = row.target_type === "redirect";
  return {
    id: row.id,
    path: row.path,
    targetType: row.target_type as CustomUrlTargetType,
    targetId: isRedirect ? null : row.target_id,
    toPath: isRedirect ? row.to_path : null,
    redirectType: isRedirect ? (Number(row.redirect_type ?? 301) as 301 | 302) : null,
    createdAt: Number(row.created_at),
  };
}
