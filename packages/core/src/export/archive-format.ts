import type { Database } from "../db/schema.js";

/**
 * The lossless site archive: JSON Lines (one JSON object per line, UTF-8, `\n` after every line).
 * @see docs/export.md § The site archive
 *
 *   {"format":"quire-site-archive","version":1,...}   the header, always first
 *   {"table":"posts","row":{...}}                     one line per row, table by table
 *   {"file":"<storage key>","contentType":"…","size":N}
 *   {"chunk":"<base64>"}                              the file's bytes, in order
 *   {"fileEnd":"<storage key>"}
 *   {"end":true,"rows":R,"files":F}                   the trailer, always last
 */
export const archiveFormat = "quire-site-archive";

/** The archive version this engine writes; it reads this version and older ones. */
export const archiveVersion = 1;

/** One archived table and the key its rows are read in (its primary key). */
export interface ArchivedTable {
  name: keyof Database;
  key: readonly string[];
  /** Columns left out (derived per database, e.g. SQLite's integer id behind its FTS index). */
  omit?: readonly string[];
}

/**
 * Every table the archive holds, in the order they are written and restored. The rows are copied
 * as stored, so IDs, timestamps, slugs, Thread figures, memberships with pins and positions,
 * directory and navigation positions, custom URLs, translation groups (a column of the root row),
 * settings overrides and media records come back exactly.
 */
export const archivedTables: readonly ArchivedTable[] = [
  { name: "settings", key: ["key"] },
  { name: "posts", key: ["id"] },
  { name: "post_search", key: ["post_id"], omit: ["id"] },
  { name: "media", key: ["id"] },
  { name: "site_addresses", key: ["path"] },
  { name: "custom_urls", key: ["id"] },
  { name: "collections", key: ["id"] },
  { name: "collection_threads", key: ["collection_id", "thread_id"] },
  { name: "collection_figures", key: ["collection_id", "language"] },
  { name: "smart_collections", key: ["id"] },
  { name: "directory_items", key: ["id"] },
  { name: "nav_items", key: ["id"] },
];

/**
 * Tables the archive leaves out, and why: API tokens are credentials of one installation; upload
 * sessions, their parts and maintenance cursors are work in progress; the content version counter
 * and the lock rows belong to the database they live in (a fresh one has its own).
 */
export const unarchivedTables: readonly string[] = [
  "api_tokens",
  "upload_sessions",
  "upload_parts",
  "maintenance_cursors",
  "content_versions",
  "nav_lock",
  "directory_lock",
  // The code-host connection holds a token and a webhook secret of this installation; the sync's
  // file list and delivery log describe that connection (docs/github-sync.md).
  "github_sync_connection",
  "github_sync_files",
  "github_sync_deliveries",
  // The owner's password hash and open sessions are credentials of this installation too: set the
  // password again on the new site (`quire owner password`).
  "owner_credentials",
  "sessions",
  // The chat bot's token, webhook secret, bound chats, bind codes and update log describe one
  // bot registration (docs/telegram.md): connect the bot again on the new site.
  "telegram_bot",
  "telegram_bind_codes",
  "telegram_chats",
  "telegram_updates",
  "telegram_albums",
];

/** The archive's first line. */
export interface ArchiveHeader {
  format: typeof archiveFormat;
  version: number;
  /** Unix seconds. */
  exportedAt: number;
  /** The newest migration of the exporting database. */
  schema: string;
  /** Rows per table and files counted when the export began (for progress; the trailer is exact). */
  counts: Record<string, number>;
  files: number;
}

/** Where a long export or import is, for a progress bar. */
export interface ArchiveProgress {
  phase: "rows" | "files";
  /** Rows (or files) done so far in this phase. */
  done: number;
  /** Rows (or files) expected in this phase, as counted at the start. */
  total: number;
}
