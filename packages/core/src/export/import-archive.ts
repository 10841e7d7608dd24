import { CompiledQuery, type Kysely } from "kysely";
import { migrations } from "../db/migrations/index.js";
import type { Database } from "../db/schema.js";
import { withOneCounterMove } from "../db/site-version.js";
import type { EngineContext } from "../deps.js";
import { conflict, EngineError, validationError } from "../errors.js";
import { type ByteSource, chunksOf } from "../storage.js";
import {
  type ArchiveHeader,
  type ArchiveProgress,
  archivedTables,
  archiveFormat,
  archiveVersion,
} from "./archive-format.js";
import { countRows, fromBase64, mediaKeys } from "./table-pages.js";

/** Options for {@link importSiteArchive}. */
export interface ImportArchiveOptions {
  /** Replace a site that already has content (every archived table is emptied first). */
  force?: boolean;
  /** Called as rows and files are restored. */
  onProgress?: (progress: ArchiveProgress) => void;
}

/** What an import restored. */
export interface ImportSummary {
  version: number;
  rows: number;
  files: number;
  /** Rows restored per table. */
  tables: Record<string, number>;
}

/**
 * Rows per insert statement: 250 rows of the widest table (posts, 36 columns) are 9,000
 * parameters, under SQLite's 32,766 and PostgreSQL's 65,535. Restoring 20,000 posts here, 250 went
 * faster than 100 or 500 (bench/README.md § Write path).
 */
const insertBatch = 250;
/** Longest line read (a 48 KiB chunk is 64 KiB of base64; a post body is at most ~4 MB as JSON). */
const maxLineBytes = 16 * 1024 * 1024;

type Row = Record<string, unknown>;
type Line = Record<string, unknown>;

/**
 * Restores a site archive (docs/export.md § Importing) in one database transaction: the header is
 * checked before anything is written (an unknown format, a newer version or a newer schema is
 * refused), a site with content is refused unless `force`, and a corrupt or truncated archive
 * fails with VALIDATION_ERROR and leaves the database as it was. Files are written to storage as
 * they arrive; if the import fails, the files it wrote are deleted again before the error is
 * thrown.
 */
export async function importSiteArchive(
  engine: { context: EngineContext },
  source: ByteSource,
  options: ImportArchiveOptions = {},
): Promise<ImportSummary> {
  const ctx = engine.context;
  const lines = readLines(source);
  const header = checkHeader(await nextLine(lines));
  const totalRows = Object.values(header.counts).reduce((sum, n) => sum + n, 0);
  const written: string[] = [];
  try {
    // One transaction, whose writes move each content counter once (db/site-version.ts).
    const summary = await ctx.db
      .transaction()
      .execute((trx) => withOneCounterMove(trx, ctx.dialect.name, () => restoreRows(trx)));
    await ctx.settingsStore.fresh();
    return summary;
  } catch (err) {
    if (ctx.storage) for (const key of written) await ctx.storage.delete(key).catch(() => {});
    throw err;
  } finally {
    await lines.return(undefined);
  }

  async function restoreRows(trx: Kysely<Database>): Promise<ImportSummary> {
    await emptyOrRefuse(trx, options.force === true);
    const tables: Record<string, number> = {};
    const known = new Map(archivedTables.map((table) => [table.name as string, table]));
    const expectedKeys = new Set<string>();
    let batch: Row[] = [];
    let batchTable = "";
    const inserts = new RowInserts(trx);
    const flush = async () => {
      if (batch.length === 0) return;
      try {
        await inserts.insert(batchTable, batch);
      } catch (err) {
        // Rows the database refuses (an unknown column, a duplicate key) are the archive's fault.
        throw validationError(
          `The archive's ${batchTable} rows could not be restored: ${(err as Error).message}`,
        );
      }
      batch = [];
    };
    let rows = 0;
    let files = 0;
    for (;;) {
      const { value: line, number } = await nextLine(lines);
      if (typeof line.table === "string") {
        const table = known.get(line.table);
        if (!table) throw corrupt(number, `names a table the archive does not hold (${line.table})`);
        if (typeof line.row !== "object" || line.row === null || Array.isArray(line.row))
          throw corrupt(number, "has no row object");
        if (files > 0) throw corrupt(number, "holds a row after the files");
        if (line.table !== batchTable || batch.length >= insertBatch) {
          await flush();
          batchTable = line.table;
        }
        const row = line.row as Row;
        if (table.name === "media") for (const key of mediaKeys(row)) expectedKeys.add(key);
        batch.push(row);
        tables[line.table] = (tables[line.table] ?? 0) + 1;
        rows += 1;
        if (rows % 500 === 0) options.onProgress?.({ phase: "rows", done: rows, total: totalRows });
        continue;
      }
      await flush();
      if (typeof line.file === "string") {
        const key = line.file;
        if (!expectedKeys.has(key) || !safeKey(key))
          throw corrupt(number, `holds a file no media record names (${key.slice(0, 200)})`);
        expectedKeys.delete(key);
        if (!ctx.storage)
          throw new EngineError(
            "CONFIGURATION_ERROR",
            "The archive holds files and the engine has no storage",
          );
        const size = typeof line.size === "number" ? line.size : -1;
        const contentType =
          typeof line.contentType === "string" ? line.contentType : "application/octet-stream";
        const body = fileBody(lines, key, size);
        written.push(key);
        await ctx.storage.put(key, body, { contentType });
        files += 1;
        options.onProgress?.({ phase: "files", done: files, total: header.files });
        continue;
      }
      if (line.end === true) {
        if (line.rows !== rows || line.files !== files)
          throw corrupt(
            number,
            `counts ${line.rows} rows and ${line.files} files, the archive held ${rows} and ${files}`,
          );
        const after = await lines.next();
        if (!after.done) throw corrupt(number + 1, "follows the archive's last line");
        return { version: header.version, rows, files, tables };
      }
      throw corrupt(number, "is not a row, a file or the end");
    }
  }
}

/** Compiled insert texts kept per restore: an archive has a few shapes, a hand-edited one maybe many. */
const maxShapes = 64;

/**
 * Multi-row inserts of archive rows, built and compiled by Kysely once per shape (table, columns,
 * number of rows) and run again with each batch's values: a restore writes hundreds of batches of a
 * few shapes, and Kysely's values parser and compiler took a tenth of its time when every batch was
 * built anew. A batch whose rows do not all name the same columns in the same order (a hand-edited
 * archive) is cut into runs of rows that do, each inserted alone: a multi-row insert names one list
 * of columns, so a column a row leaves out would be written as NULL there (SQLite has no `DEFAULT`
 * in a values list), where the row alone gets the column's default; and a column only a later row
 * names reaches the database, which refuses it if the table has no such column. Not `compiled()`
 * (db/compiled.ts): that serves statements of one shape declared in code, and these shapes come
 * from the archive.
 */
class RowInserts {
  readonly #compiled = new Map<string, string>();

  // biome-ignore lint/suspicious/noExplicitAny: the table is named by the archive, checked against the archived list
  constructor(private readonly db: Kysely<any>) {}

  async insert(table: string, rows: readonly Row[]): Promise<void> {
    let start = 0;
    while (start < rows.length) {
      const columns = Object.keys(rows[start] ?? {});
      let end = start + 1;
      while (end < rows.length && namesExactly(rows[end] as Row, columns)) end += 1;
      await this.#insertRun(table, columns, rows.slice(start, end));
      start = end;
    }
  }

  /** Rows that all name `columns`, in that order, as one statement. */
  async #insertRun(table: string, columns: readonly string[], rows: readonly Row[]): Promise<void> {
    if (columns.length === 0) {
      await this.db.insertInto(table).values(rows).execute();
      return;
    }
    const shape = `${table}\u0000${rows.length}\u0000${columns.join("\u0000")}`;
    let text = this.#compiled.get(shape);
    if (text === undefined) {
      const blank = Object.fromEntries(columns.map((column) => [column, null]));
      const query = this.db
        .insertInto(table)
        .values(rows.map(() => blank))
        .compile();
      // Every value is a parameter, in row order then column order: the values below fill them.
      if (query.parameters.length !== rows.length * columns.length)
        throw new Error(`Unexpected parameters in the insert into ${table}`);
      text = query.sql;
      if (this.#compiled.size < maxShapes) this.#compiled.set(shape, text);
    }
    const values: unknown[] = [];
    for (const row of rows) for (const column of columns) values.push(row[column]);
    await this.db.executeQuery(CompiledQuery.raw(text, values));
  }
}

function namesExactly(row: Row, columns: readonly string[]): boolean {
  let count = 0;
  for (const column in row) {
    if (!Object.hasOwn(row, column)) continue;
    if (column !== columns[count]) return false;
    count += 1;
  }
  return count === columns.length;
}

function checkHeader({ value }: { value: Line }): ArchiveHeader {
  if (value.format !== archiveFormat) throw validationError("This is not a Quire site archive (no header)");
  if (typeof value.version !== "number" || !Number.isInteger(value.version) || value.version < 1)
    throw validationError("The archive's header has no valid version");
  if (value.version > archiveVersion) {
    throw validationError(
      `The archive is format version ${value.version}; this Quire reads up to version ${archiveVersion}. Upgrade Quire to import it.`,
    );
  }
  if (typeof value.schema !== "string" || !(value.schema in migrations)) {
    throw validationError(
      `The archive comes from a database at migration ${String(value.schema)}, which this Quire does not know. Upgrade Quire to import it.`,
    );
  }
  const counts =
    typeof value.counts === "object" && value.counts !== null ? (value.counts as Record<string, number>) : {};
  return {
    ...(value as unknown as ArchiveHeader),
    counts,
    files: typeof value.files === "number" ? value.files : 0,
  };
}

/** Refuses a site that has content, or (forced) empties every archived table. */
async function emptyOrRefuse(trx: Kysely<Database>, force: boolean): Promise<void> {
  for (const table of archivedTables) {
    if (force) {
      // biome-ignore lint/suspicious/noExplicitAny: the table is chosen from the archived list
      await (trx as unknown as Kysely<any>).deleteFrom(table.name).execute();
    } else if ((await countRows(trx, table.name)) > 0) {
      throw conflict(
        `The site already has content (${table.name}); import into an empty site, or pass force to replace it`,
      );
    }
  }
}

/** The bytes of one file: its `chunk` lines up to its `fileEnd`, checked against the declared size. */
async function* fileBody(
  lines: AsyncGenerator<{ value: Line; number: number }>,
  key: string,
  size: number,
): AsyncGenerator<Uint8Array, void, undefined> {
  let received = 0;
  for (;;) {
    const { value, number } = await nextLine(lines);
    if (typeof value.chunk === "string") {
      let bytes: Uint8Array;
      try {
        bytes = fromBase64(value.chunk);
      } catch {
        throw corrupt(number, "holds a chunk that is not base64");
      }
      received += bytes.length;
      yield bytes;
      continue;
    }
    if (value.fileEnd === key) {
      if (received !== size) throw corrupt(number, `ends a file of ${received} bytes declared as ${size}`);
      return;
    }
    throw corrupt(number, `interrupts the file ${key}`);
  }
}

/** The next line, or a VALIDATION_ERROR when the archive ends early. */
async function nextLine(
  lines: AsyncGenerator<{ value: Line; number: number }>,
): Promise<{ value: Line; number: number }> {
  const next = await lines.next();
  if (next.done) throw validationError("The archive is truncated: it ends before its last line");
  return next.value;
}

/** Parsed lines of the archive, numbered from 1; a last line without its newline is truncation. */
async function* readLines(
  source: ByteSource,
): AsyncGenerator<{ value: Line; number: number }, void, undefined> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let buffer = "";
  let number = 0;
  const parse = (text: string): { value: Line; number: number } => {
    number += 1;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw corrupt(number, "is not valid JSON");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw corrupt(number, "is not an object");
    return { value: value as Line, number };
  };
  try {
    for await (const chunk of chunksOf(source)) {
      buffer += decoder.decode(chunk, { stream: true });
      // Lines are cut from the text by index; the rest is kept once per chunk, not once per line.
      let start = 0;
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        yield parse(buffer.slice(start, newline));
        start = newline + 1;
        newline = buffer.indexOf("\n", start);
      }
      buffer = buffer.slice(start);
      if (buffer.length > maxLineBytes) throw corrupt(number + 1, "is longer than any line an archive holds");
    }
    buffer += decoder.decode();
  } catch (err) {
    if (err instanceof TypeError) throw validationError("The archive is corrupt: it is not UTF-8 text");
    throw err;
  }
  if (buffer.length > 0) throw validationError("The archive is truncated: its last line is cut off");
}

function corrupt(line: number, problem: string): EngineError {
  return validationError(`The archive is corrupt: line ${line} ${problem}`);
}

/** A storage key as the engine writes them: relative, no empty or dot segments. */
function safeKey(key: string): boolean {
  return (
    key.length <= 1024 &&
    /^[A-Za-z0-9_][A-Za-z0-9._\-/]*$/.test(key) &&
    key.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..")
  );
}
