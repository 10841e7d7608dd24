import type { SystemKey } from "./nav-schemas.js";

/**
 * The built-in items: the label and the site path each gets automatically. The paths are the
 * site's own routes (reserved, so no post or collection can take them).
 * @see docs/navigation.md § System items
 */
export const systemItems: Record<SystemKey, { label: string; path: string }> = {
  rss: { label: "RSS", path: "/rss" },
  settings: { label: "Settings", path: "/settings" },
  collections: { label: "Collections", path: "/collections" },
  archive: { label: "Archive", path: "/archive" },
};
