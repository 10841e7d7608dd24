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

import { exportHugo } from "./hugo-export.js";

export { exportHugo, hugoEntries } from "./hugo-export.js";
export { isStreamedFile, type StreamedFile } from "./streamed-file.js";

/** The export operations. */
export const exportOperations = [exportHugo] as const;
