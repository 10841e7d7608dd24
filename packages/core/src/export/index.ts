export {
  type ArchiveHeader,
  type ArchiveProgress,
  archivedTables,
  archiveFormat,
  archiveVersion,
  unarchivedTables,
} from "./archive-format.js";
export { type ExportArchiveOptions, exportSiteArchive } from "./export-archive.js";
export { type ImportArchiveOptions, type ImportSummary, importSiteArchive } from "./import-archive.js";
