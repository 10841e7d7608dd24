import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import { invalidField } from "../errors.js";
import { decodeCursor, encodeCursor } from "../shared/cursor.js";

/** The direction of a sort key. */
export type SortDirection = "asc" | "desc";

/** A column of `Row`, bare (`id`) or as the query names it (`p.id`); the row carries it under its bare name. */
export type KeyColumn<Row> = (keyof Row & string) | `${string}.${keyof Row & string}`;

/** One sort key of a {@link KeysetOrder}: a column and the type its value has in a cursor. */
export interface SortKey<Row = Record<string, unknown>> {
  column: KeyColumn<Row>;
  /** `integer` keys are safe integers (times, ratings); `string` keys are text (IDs). */
  type: "integer" | "string";
  /** This key's direction, when it differs from the order's. */
  direction?: SortDirection;
}

/**
 * A keyset order: the rows sorted by `keys`, the last of which is unique (the ID tie-break), so the
 * order is total. Every key is non-null on the rows the query selects: a nullable column is split
 * into segments by its caller (see {@link pageBySegments}), never compared with null.
 */
export interface KeysetOrder<Row = Record<string, unknown>> {
  /** The order name a cursor carries; a cursor of another name is refused. */
  name: string;
  /** The direction of every key that names none. */
  direction: SortDirection;
  keys: readonly SortKey<Row>[];
}

/** The sort key values of one row, in key order. */
export type KeyValues = (number | string)[];

/** One page of a cursor list. */
export interface KeysetPage<Row> {
  rows: Row[];
  /** The cursor after the page's last row; null on the last page. */
  nextCursor: string | null;
}

/** One stretch of a list shown after the previous ones (pinned rows, then the rest), with its own order. */
export interface KeysetSegment<DB, TB extends keyof DB, Row> {
  order: KeysetOrder<Row>;
  query: SelectQueryBuilder<DB, TB, Row>;
}

/**
 * One page of `query` in `order` after `cursor`: the after-cursor condition, the order, `limit + 1`
 * rows (the extra one only tells whether another page exists) and the next page's cursor. A cursor
 * of another order or an unreadable one is a 400 on `cursor`. @see spec § Pagination
 */
export function pageByKeys<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  order: KeysetOrder<NoInfer<Row>>,
  page: { cursor?: string | undefined; limit: number },
): Promise<KeysetPage<Row>> {
  return pageBySegments([{ order, query }], page);
}

/**
 * One page of a list made of segments shown one after another, each walked by keyset on its own
 * order: the cursor names the segment it stands in (its order name), the page continues into the
 * next segments while it has room, and a deep page costs what the first one does (one query per
 * segment read). @see spec § Pagination
 */
export async function pageBySegments<DB, TB extends keyof DB, Row>(
  segments: readonly KeysetSegment<DB, TB, Row>[],
  page: { cursor?: string | undefined; limit: number },
): Promise<KeysetPage<Row>> {
  const start = page.cursor
    ? readCursor(
        page.cursor,
        segments.map((segment) => segment.order),
      )
    : undefined;
  const rows: Row[] = [];
  let lastOrder: KeysetOrder<Row> | undefined;
  for (let index = start?.segment ?? 0; index < segments.length; index++) {
    const { order, query } = segments[index] as KeysetSegment<DB, TB, Row>;
    const after = index === start?.segment ? start.keys : undefined;
    const read = await readByKeys(query, order, { after, limit: page.limit - rows.length });
    if (read.rows.length > 0) lastOrder = order;
    rows.push(...read.rows);
    const last = rows.at(-1);
    if (read.more) return { rows, nextCursor: last && lastOrder ? cursorAfter(lastOrder, last) : null };
  }
  return { rows, nextCursor: null };
}

/**
 * The rows of `query` strictly after `after` in `order` (from the start without it), `limit` at
 * most, and whether more follow (one look-ahead row, dropped). The building block of the pages
 * above, for a list whose cursor carries more than one order's keys (a Thread's posts).
 */
export async function readByKeys<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  order: KeysetOrder<NoInfer<Row>>,
  page: { after?: KeyValues | undefined; limit: number },
): Promise<{ rows: Row[]; more: boolean }> {
  const rows = (await inKeyOrder(query, order, page.after)
    .limit(page.limit + 1)
    .execute()) as Row[];
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}

/**
 * `query` in `order`, strictly after `after` when given, without a limit: what {@link readByKeys}
 * reads. A compiled statement (db/compiled.ts) builds its pages with it too, passing placeholders
 * as the keys and the limit.
 */
export function inKeyOrder<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  order: KeysetOrder<NoInfer<Row>>,
  after?: KeyValues,
): SelectQueryBuilder<DB, TB, Row> {
  let select = after ? query.where(afterKeys(order, after)) : query;
  for (const key of order.keys)
    select = select.orderBy(sql.ref(key.column), key.direction ?? order.direction);
  return select;
}

/**
 * Rows strictly after `keys` in `order`. When every key runs one way it is a row-value comparison
 * `(a, b, id) < (?, ?, ?)`, which SQLite and PostgreSQL both read as one range of an index whose
 * columns follow the keys; mixed directions take the expanded form
 * `(a < ?) or (a = ? and b > ?) or (a = ? and b = ? and id > ?)`, which is not one range.
 */
export function afterKeys<Row>(order: KeysetOrder<Row>, keys: KeyValues): Expression<SqlBool> {
  const directions = order.keys.map((key) => key.direction ?? order.direction);
  const refs = order.keys.map((key) => sql.ref(key.column));
  const values = keys.map((value) => sql.val(value));
  const [first] = directions;
  if (first && directions.every((direction) => direction === first)) {
    return sql<SqlBool>`(${sql.join(refs)}) ${beyond(first)} (${sql.join(values)})`;
  }
  const branches = refs.map((ref, index) => {
    const ties = refs.slice(0, index).map((tied, before) => sql`${tied} = ${values[before]}`);
    const step = sql`${ref} ${beyond(directions[index] as SortDirection)} ${values[index]}`;
    return sql`(${sql.join([...ties, step], sql` and `)})`;
  });
  return sql<SqlBool>`(${sql.join(branches, sql` or `)})`;
}

function beyond(direction: SortDirection) {
  return sql.raw(direction === "desc" ? "<" : ">");
}

/** Where a cursor stands: the index of the order (segment) it belongs to and its key values. */
export interface CursorStart {
  segment: number;
  keys: KeyValues;
}

/**
 * Reads a cursor of one of `orders` (the segments of a list, or a single order). A cursor of no
 * such order, an unreadable one, a bare ID, or one whose keys are not the order's count and types
 * is a 400 on `cursor` (for no matching order, the verdict of the last one).
 */
export function readCursor<Row>(cursor: string, orders: readonly KeysetOrder<Row>[]): CursorStart {
  // The error is built only when no order reads the cursor: a stack trace per page costs microseconds.
  let failure: unknown;
  for (const [segment, order] of orders.entries()) {
    let values: ReturnType<typeof decodeCursor>;
    try {
      values = decodeCursor(cursor, order.name, order.keys.length);
    } catch (err) {
      failure = err;
      continue;
    }
    return { segment, keys: checkKeys(order, values) };
  }
  throw failure ?? invalidField("cursor", "Unreadable cursor");
}

/**
 * The cursor's key values when they fit the order's keys (count and types), else a 400 on
 * `cursor`. A fitting value is one the database compares without error (no fractions or huge
 * numbers against an integer column, no NUL in text).
 */
export function checkKeys<Row>(order: KeysetOrder<Row>, values: readonly unknown[]): KeyValues {
  const fits =
    values.length === order.keys.length &&
    order.keys.every((key, index) => {
      const value = values[index];
      return key.type === "integer"
        ? Number.isSafeInteger(value)
        : typeof value === "string" && !value.includes("\u0000");
    });
  if (!fits) throw invalidField("cursor", "Unreadable cursor");
  return values as KeyValues;
}

/** The cursor after `row` in `order`: its key values under the order's name. @see spec § Pagination */
export function cursorAfter<Row>(order: KeysetOrder<Row>, row: Row): string {
  return encodeCursor({ order: order.name, keys: keysOf(order, row) });
}

/** A row's key values in `order`; a key the row lacks or holds as another type is a programming error. */
export function keysOf<Row>(order: KeysetOrder<Row>, row: Row): KeyValues {
  return order.keys.map((key) => {
    const name = key.column.slice(key.column.lastIndexOf(".") + 1);
    const value: unknown = (row as Record<string, unknown>)[name];
    // Integer columns may reach here as bigint or text from a driver without an integer parser.
    const keyValue =
      key.type === "integer" && typeof value !== "number" ? Number(value ?? Number.NaN) : value;
    const fits = key.type === "integer" ? Number.isSafeInteger(keyValue) : typeof keyValue === "string";
    if (!fits) throw new Error(`Keyset order ${order.name}: ${key.column} is ${String(value)} on a row`);
    return keyValue as number | string;
  });
}
