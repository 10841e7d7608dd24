import { migrations } from "../db/migrations/index.js";
import { openReadSnapshot } from "../db/read-snapshot.js";
import type { EngineContext } from "../deps.js";
import { chunksOf } from "../storage.js";
import {
  type ArchiveHeader,
  type ArchiveProgress,
  archivedTables,
  archiveFormat,
  archiveVersion,
} from "./archive-format.js";
import { countRows, mediaKeys, tableRows, toBase64 } from "./table-pages.js";

/** Options for {@link exportSiteArchive}. */
export interface ExportArchiveOptions {
  /** Called as rows and files are written (at most once per 500 rows, and once per file). */
  onProgress?: (progress: ArchiveProgress) => void;
}

/** Bytes of a file per `chunk` line (a multiple of 3, so every line is whole base64). */
const fileChunkBytes = 48 * 1024;
/** Output is handed on in pieces of about this size. */
const outputBytes = 64 * 1024;

/**
 * The whole site as a lossless archive (docs/export.md § The site archive): a stream of bytes
 * produced as it is read, one page of rows or one chunk of a file at a time, so memory stays flat
 * whatever the site's size. Media files are read from the engine's storage; a record whose file
 * the store no longer has is exported without it and logged.
 */
export async function* exportSiteArchive(
  engine: { context: EngineContext },
  options: ExportArchiveOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const ctx = engine.context;
  // Every page is read from one snapshot: the archive is the site at one instant, whatever writes
  // meanwhile (db/read-snapshot.ts). Only a SQLite database built by hand, or in memory, has none;
  // there the pages are read as they come (docs/export.md § Consistency).
  const snapshot = await openReadSnapshot(ctx.db, ctx.dialect.name);
  try {
    yield* archiveBytes({ ...ctx, db: snapshot?.db ?? ctx.db }, options);
  } finally {
    await snapshot?.end();
  }
}

async function* archiveBytes(
  ctx: EngineContext,
  options: ExportArchiveOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const encoder = new TextEncoder();
  let pending: string[] = [];
  let pendingLength = 0;
  const line = (value: unknown): Uint8Array | undefined => {
    const text = `${JSON.stringify(value)}\n`;
    pending.push(text);
    pendingLength += text.length;
    if (pendingLength < outputBytes) return undefined;
    const out = encoder.encode(pending.join(""));
    pending = [];
    pendingLength = 0;
    return out;
  };

  const counts: Record<string, number> = {};
  let totalRows = 0;
  for (const table of archivedTables) {
    counts[table.name] = await countRows(ctx.db, table.name);
    totalRows += counts[table.name] ?? 0;
  }
  const header: ArchiveHeader = {
    format: archiveFormat,
    version: archiveVersion,
    exportedAt: ctx.clock.now(),
    schema: Object.keys(migrations).at(-1) ?? "",
    counts,
    files: counts.media ?? 0,
  };
  let out = line(header);
  if (out) yield out;

  let rows = 0;
  const keys: string[] = [];
  for (const table of archivedTables) {
    for await (const row of tableRows(ctx.db, table)) {
      if (table.name === "media") keys.push(...mediaKeys(row));
      out = line({ table: table.name, row });
      if (out) yield out;
      rows += 1;
      if (rows % 500 === 0) options.onProgress?.({ phase: "rows", done: rows, total: totalRows });
    }
  }
  options.onProgress?.({ phase: "rows", done: rows, total: Math.max(rows, totalRows) });

  let files = 0;
  for (const key of keys) {
    const read = ctx.storage ? await ctx.storage.get(key) : null;
    if (!read) {
      ctx.logger.warn("export: a media record's file is missing from storage", { key });
      continue;
    }
    out = line({ file: key, contentType: read.contentType, size: read.size });
    if (out) yield out;
    let carry = new Uint8Array(0);
    for await (const chunk of chunksOf(read.body)) {
      let bytes = chunk;
      if (carry.length > 0) {
        bytes = new Uint8Array(carry.length + chunk.length);
        bytes.set(carry);
        bytes.set(chunk, carry.length);
      }
      let start = 0;
      while (bytes.length - start >= fileChunkBytes) {
        out = line({ chunk: toBase64(bytes.subarray(start, start + fileChunkBytes)) });
        if (out) yield out;
        start += fileChunkBytes;
      }
      carry = bytes.slice(start);
    }
    if (carry.length > 0) {
      out = line({ chunk: toBase64(carry) });
      if (out) yield out;
    }
    out = line({ fileEnd: key });
    if (out) yield out;
    files += 1;
    options.onProgress?.({ phase: "files", done: files, total: keys.length });
  }
  line({ end: true, rows, files });
  yield encoder.encode(pending.join(""));
}
