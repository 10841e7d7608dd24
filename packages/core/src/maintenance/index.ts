import { cleanupUploads } from "./cleanup-uploads.js";
import { purgeTokens } from "./purge-tokens.js";
import { rebuildHtml } from "./rebuild-body-html.js";
import { reindexSearch } from "./reindex-search.js";
import { tokenHealth } from "./token-health.js";

/** The internal admin's maintenance operations (docs/internal-admin.md). */
export const maintenanceOperations = [
  tokenHealth,
  purgeTokens,
  cleanupUploads,
  reindexSearch,
  rebuildHtml,
] as const;
