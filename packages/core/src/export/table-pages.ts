import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import type { ArchivedTable } from "./archive-format.js";

/** Rows read per query while exporting: memory stays bounded by one page, whatever the site's size. */
export const exportPageSize = 500;

type Row = Record<string, unknown>;

/**
 * Every row of a table, page by page in primary-key order (a keyset walk: each page starts after
 * the last key of the one before, on the primary key's index), without the omitted columns.
 */
export async function* tableRows(
  db: Kysely<Database>,
  table: ArchivedTable,
  pageSize = exportPageSize,
): AsyncGenerator<Row, void, undefined> {
  for await (const page of tablePages(db, table, pageSize)) yield* page;
}

/** The rows of {@link tableRows}, a page at a time. */
export async function* tablePages(
  db: Kysely<Database>,
  table: ArchivedTable,
  pageSize = exportPageSize,
): AsyncGenerator<Row[], void, undefined> {
  // biome-ignore lint/suspicious/noExplicitAny: the table is chosen at run time from the archived list
  const anyDb = db as unknown as Kysely<any>;
  let after: Row | undefined;
  for (;;) {
    let query = anyDb.selectFrom(table.name).selectAll();
    if (after) {
      const last = after;
      query = query.where((eb) => {
        // (k1, k2, …) > (v1, v2, …) spelled out, for both databases.
        const branches = table.key.map((column, index) =>
          eb.and([
            ...table.key.slice(0, index).map((earlier) => eb(earlier, "=", last[earlier])),
            eb(column, ">", last[column]),
          ]),
        );
        return eb.or(branches);
      });
    }
    for (const column of table.key) query = query.orderBy(column, "asc");
    const rows = (await query.limit(pageSize).execute()) as Row[];
    if (table.omit) for (const row of rows) for (const column of table.omit) delete row[column];
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1];
  }
}

/** Rows in a table now. */
export async function countRows(db: Kysely<Database>, name: keyof Database): Promise<number> {
  // biome-ignore lint/suspicious/noExplicitAny: the table is chosen at run time from the archived list
  const anyDb = db as unknown as Kysely<any>;
  const row = await anyDb
    .selectFrom(name)
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The storage keys of one media row (the file, its poster and its preview). */
export function mediaKeys(row: Row): string[] {
  return [row.storage_key, row.poster_key, row.preview_key].filter(
    (key): key is string => typeof key === "string" && key !== "",
  );
}

/** Base64 of bytes, without Node's Buffer (core runs in Workers too). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Bytes of base64 text; throws on text that is not base64. */
export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
