import { type Expression, type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { CollectionRef } from "../collections/memberships.js";
import { type CompiledStatement, compiled, type Params } from "../db/compiled.js";
import { detectDialect } from "../db/dialect.js";
import type { Database } from "../db/schema.js";
import {
  afterKeys,
  type CursorStart,
  checkKeys,
  cursorAfter,
  type KeyValues,
  readCursor,
  type SortDirection,
} from "../pagination/keyset.js";
import { decodeCursor } from "../shared/cursor.js";
import type { ThreadFilter, ThreadListQuery } from "./thread-filter.js";
import { filterConditions } from "./thread-filter.js";
import {
  type CollectionListOrder,
  collectionSegmentsFor,
  type Segment,
  segmentsFor,
} from "./thread-order.js";
import { type ListedRoot, type ReadColumns, rootColumns } from "./thread-rows.js";

/** One page of roots and the cursor of the next page (null on the last page). */
export interface RootPage {
  roots: ListedRoot[];
  nextCursor: string | null;
}

/**
 * One page of a Thread list's roots by keyset: each segment of the order is read from the cursor's
 * position with the rows the page still has room for and one more, so a deep page costs what the
 * first one does. The extra row only tells whether another page exists. A page whose cursor stands
 * past the pinned section reads only the segments left. On SQLite each segment read is one
 * statement, run while the page has room; where statements are round trips (PostgreSQL) the
 * segments left are one `union all` statement (see {@link readQuery}).
 *
 * Lists without a collection filter run as compiled statements (db/compiled.ts), one per shape of
 * the read (segments, whether a cursor applies, which filters are set), their values passed as
 * parameters: no building or compiling of the query per call, and one SQL text per shape for the
 * driver to keep prepared. `columns` chooses what is read of each root (see {@link ReadColumns}):
 * all of it by default, only what the reading view shows for a public list.
 * @see spec § Pagination, docs/threads.md § Orders, docs/collections.md § Thread lists by collection
 */
export async function listRoots(
  db: Kysely<Database>,
  query: ThreadListQuery,
  page: { cursor?: string | undefined; limit: number },
  columns: ReadColumns = "all",
): Promise<RootPage> {
  const order = await segmentsOf(db, query);
  if (!order) {
    // The one named collection does not exist, so the list is empty; a cursor is still read, as
    // on every list (an unreadable one is 400, not an empty page).
    if (page.cursor) checkUnknownCollectionCursor(page.cursor, query.filter);
    return { roots: [], nextCursor: null };
  }
  const start = page.cursor ? cursorStart(page.cursor, order) : undefined;
  const first = start?.segment ?? 0;
  // Where statements are round trips, the segments left are read at once (see `readQuery`).
  const together = detectDialect(db).roundTrips;
  const rows: ListedRoot[] = [];
  let lastOrder: Segment | undefined;
  for (let index = first; index < order.length; ) {
    const spec: ReadSpec = {
      filter: query.filter,
      order,
      index,
      end: together ? order.length : index + 1,
      after: index === first ? start?.keys : undefined,
      take: page.limit - rows.length + 1,
      columns,
    };
    const statement = compiledRead(spec);
    const read = statement
      ? await statement.execute(db, readParams(spec))
      : await readQuery(db, spec).execute();
    const more = read.length === spec.take;
    const kept = more ? read.slice(0, -1) : read;
    const lastKept = kept.at(-1);
    if (lastKept) lastOrder = order[spec.end - index === 1 ? index : Number(lastKept.seg)];
    rows.push(...kept);
    if (more) {
      // The page is full: the cursor stands after its last row, in the order of the segment that
      // row came from.
      const last = rows.at(-1);
      return { roots: rows, nextCursor: last && lastOrder ? cursorAfter(lastOrder, last) : null };
    }
    index = spec.end;
  }
  return { roots: rows, nextCursor: null };
}

/**
 * Where a cursor stands in the order (as `readCursor` reads it), trying the last segment first: a
 * deep page's cursor stands past the pinned section. (`readCursor` builds its error before trying
 * any order, a cost on every page.) A cursor of no segment gets `readCursor`'s verdict.
 */
function cursorStart(cursor: string, order: Segment[]): CursorStart {
  for (let segment = order.length - 1; segment >= 0; segment--) {
    const { name, keys } = order[segment] as Segment;
    let values: unknown[];
    try {
      values = decodeCursor(cursor, name, keys.length);
    } catch {
      continue;
    }
    return { segment, keys: checkKeys(order[segment] as Segment, values) };
  }
  return readCursor(cursor, order);
}

/** Refuses a cursor that no order a collection may have (its `sortOrder`) can read. */
function checkUnknownCollectionCursor(cursor: string, filter: ThreadFilter): void {
  let refusal: unknown;
  for (const sortOrder of new Set(Object.values(collectionOrders))) {
    try {
      cursorStart(
        cursor,
        collectionSegmentsFor(sortOrder, filter.status, { slugs: filter.collections ?? [] }),
      );
      return;
    } catch (error) {
      refusal ??= error;
    }
  }
  throw refusal;
}

/** What one read is built from; values are real ones or a compiled statement's placeholders. */
interface ReadSpec {
  filter: ThreadFilter;
  order: Segment[];
  /** The first segment read. */
  index: number;
  /** The segment after the last one read (`index + 1`: one segment). */
  end: number;
  /** The cursor's key values, within segment `index`. */
  after?: KeyValues | undefined;
  /** Rows to read: what the page has room for, and one. */
  take: number;
  /** The columns read of each root. */
  columns: ReadColumns;
}

/** A root as a read of several segments answers it: with the index of its segment. */
type ReadRow = ListedRoot & { seg?: number };

type ReadSelect = SelectQueryBuilder<Database, "posts", ReadRow>;

/**
 * The roots of segments `index` to `end` (excluded), `take` at most. One segment is
 * {@link branchQuery}. Several are one statement: each segment's read as a derived table, joined
 * by `union all`, ordered by segment then the segments' keys, `take` rows of them. Each segment
 * still reads its own index from its position, `take` rows at most; what the union adds is a
 * sort of those few rows, cheaper than a round trip to a server but not than a statement run in
 * process (SQLite's sorter copies the full rows), hence `Dialect.roundTrips`.
 */
function readQuery(db: Kysely<Database>, spec: ReadSpec): ReadSelect {
  if (spec.end - spec.index === 1) return branchQuery(db, spec);
  const branches: ReadSelect[] = [];
  for (let index = spec.index; index < spec.end; index++) {
    const branch = branchQuery(db, { ...spec, index, after: index === spec.index ? spec.after : undefined });
    branches.push(branch.select(sql.lit(index).as("seg")) as unknown as ReadSelect);
  }
  const [head, ...tail] = branches as [ReadSelect, ...ReadSelect[]];
  const from = (branch: ReadSelect, i: number) =>
    db.selectFrom(branch.as(`s${i}`)).selectAll() as unknown as ReadSelect;
  let union = from(head, 0);
  for (const [i, branch] of tail.entries()) union = union.unionAll(from(branch, i + 1));
  let page = db.selectFrom(union.as("page")).selectAll().orderBy(sql.ref("page.seg"), "asc");
  for (const key of unionKeys(spec.order.slice(spec.index, spec.end), spec.index)) {
    page = page.orderBy(key.expression, key.direction);
  }
  return page.limit(spec.take) as unknown as ReadSelect;
}

/**
 * The keys that order a union's rows within each segment: the segments' own keys when they share
 * them (columns and directions), else each segment's keys applied to its own rows only
 * (`case when seg = i then key end`, null on the other segments' rows, which `seg` puts apart).
 */
function unionKeys(
  segments: Segment[],
  first: number,
): { expression: Expression<unknown>; direction: SortDirection }[] {
  const column = (name: string) => `page.${name.slice(name.lastIndexOf(".") + 1)}`;
  const direction = (segment: Segment, key: Segment["keys"][number]) => key.direction ?? segment.direction;
  const [head] = segments;
  if (!head) return [];
  const shared = segments.every(
    (segment) =>
      segment.keys.length === head.keys.length &&
      segment.keys.every(
        (key, i) =>
          key.column === head.keys[i]?.column &&
          direction(segment, key) === direction(head, head.keys[i] as Segment["keys"][number]),
      ),
  );
  if (shared) {
    return head.keys.map((key) => ({
      expression: sql.ref(column(key.column)),
      direction: direction(head, key),
    }));
  }
  return segments.flatMap((segment, offset) =>
    segment.keys.map((key) => ({
      expression: sql`case when ${sql.ref("page.seg")} = ${sql.lit(first + offset)} then ${sql.ref(column(key.column))} end`,
      direction: direction(segment, key),
    })),
  );
}

/**
 * One segment's roots: its source, the filter, its own condition, the cursor's position, its
 * order, `take` rows. Each row carries `in_collections` (see {@link ListedRoot}).
 */
function branchQuery(db: Kysely<Database>, spec: Omit<ReadSpec, "end">): ReadSelect {
  const segment = spec.order[spec.index];
  if (!segment) throw new Error(`A Thread order has no segment ${spec.index}`);
  const source = sourceOf(db, segment);
  const columns = rootColumns(spec.columns);
  let branch = (
    columns ? source.select(columns.map((column) => `r.${column}` as const)) : source.selectAll("r")
  )
    .where((eb) => eb.and(filterConditions(eb, spec.filter)))
    .select((eb) =>
      eb
        .case()
        .when(
          eb.exists(
            eb
              .selectFrom("collection_threads as cm")
              .select("cm.thread_id")
              .whereRef("cm.thread_id", "=", "r.id"),
          ),
        )
        .then(sql.lit(1))
        .else(sql.lit(0))
        .end()
        .as("in_collections"),
    );
  if (segment.where) branch = branch.where(segment.where);
  if (spec.after) branch = branch.where(afterKeys(segment, spec.after));
  for (const key of segment.keys) {
    branch = branch.orderBy(sql.ref(key.column), key.direction ?? segment.direction);
  }
  return branch.limit(spec.take) as unknown as ReadSelect;
}

/** Where a segment's roots are read from, aliased `r` (nothing selected yet). */
function sourceOf(db: Kysely<Database>, segment: Segment): RootSource {
  if (segment.pinnedIn) return pinnedRoots(db, segment.pinnedIn);
  if (segment.index) return rootsThrough(db, segment.index);
  return rootsOf(db);
}

/** Roots only, aliased `r`, nothing selected (see `selectRoots`). */
function rootsOf(db: Kysely<Database>) {
  return db.selectFrom("posts as r").where("r.reply_to_id", "is", null);
}

type RootSource = ReturnType<typeof rootsOf>;

/** The parameters of a compiled read: the filter's values, the cursor's keys, `take`. */
type ReadParams = Record<string, string | number>;

/** Compiled reads by shape (see {@link shapeOf}); a bounded number, oldest dropped first. */
const statements = new Map<string, CompiledStatement<ReadParams, ReadRow>>();
const maxStatements = 200;

/**
 * The compiled statement of a read of this shape, or undefined for a list filtered by collections
 * (their slugs or IDs are lists; those reads are built per call).
 */
function compiledRead(spec: ReadSpec): CompiledStatement<ReadParams, ReadRow> | undefined {
  const { filter, order, index, after } = spec;
  if (filter.collections || filter.collectionIds) return undefined;
  const shape = shapeOf(spec);
  const found = statements.get(shape);
  if (found) return found;
  const statement = compiled<ReadParams>()((db, p) =>
    readQuery(db, {
      ...spec,
      filter: placeholderFilter(filter, p),
      after: after ? order[index]?.keys.map((_, i) => p.value(`k${i}`)) : undefined,
      take: p.value("take") as number,
    }),
  );
  if (statements.size >= maxStatements) statements.delete(statements.keys().next().value as string);
  statements.set(shape, statement);
  return statement;
}

/**
 * What decides a read's SQL text: the columns, the order's segments (their names fix them for
 * lists without collections), the segments read, whether a cursor applies, and which filters are
 * set and how (values excluded: they are parameters; the `media` kinds mask is written as a
 * constant).
 */
function shapeOf({ filter, order, index, end, after, columns }: ReadSpec): string {
  return [
    columns,
    order.map((segment) => segment.name).join(","),
    index,
    end,
    after ? "c" : "",
    filter.visibility.kind,
    filter.featured ? "f" : "",
    filter.format === undefined ? "" : "fmt",
    filter.published === undefined ? "" : "y",
    filter.title ?? "",
    filter.replies ?? "",
    filter.language === undefined ? "" : "l",
    filter.media ? `${filter.media.kind}${"mask" in filter.media ? filter.media.mask : ""}` : "",
  ].join("|");
}

/** The filter with each value replaced by its placeholder (the conditions stay the same). */
function placeholderFilter(filter: ThreadFilter, p: Params<ReadParams>): ThreadFilter {
  const value = <T>(name: string) => p.value(name) as unknown as T;
  return {
    ...filter,
    status: value("status"),
    visibility:
      filter.visibility.kind === "one" ? { kind: "one", value: value("visibility") } : filter.visibility,
    format: filter.format === undefined ? undefined : value("format"),
    published:
      filter.published === undefined
        ? undefined
        : { start: value("publishedStart"), end: value("publishedEnd") },
    language: filter.language === undefined ? undefined : value("language"),
  };
}

/** The values of a compiled read's placeholders. */
function readParams({ filter, after, take }: ReadSpec): ReadParams {
  const params: ReadParams = { status: filter.status, take };
  if (filter.visibility.kind === "one") params.visibility = filter.visibility.value;
  if (filter.format !== undefined) params.format = filter.format;
  if (filter.published !== undefined) {
    params.publishedStart = filter.published.start;
    params.publishedEnd = filter.published.end;
  }
  if (filter.language !== undefined) params.language = filter.language;
  if (after) for (const [i, key] of after.entries()) params[`k${i}`] = key;
  return params;
}

/**
 * Roots pinned in the named collections, aliased `r` like {@link rootsOf}: read from the
 * pinned memberships first (a CROSS JOIN keeps SQLite's planner on that order; PostgreSQL plans it
 * by its statistics), so the pinned section costs what its few rows do, not a walk of an index.
 */
function pinnedRoots(db: Kysely<Database>, collections: CollectionRef): RootSource {
  let pinned = db
    .selectFrom("collection_threads as m")
    .select("m.thread_id")
    .distinct()
    .where("m.pinned_at", "is not", null);
  pinned =
    "ids" in collections
      ? pinned.where("m.collection_id", "in", collections.ids)
      : pinned.where("m.collection_id", "in", (sub) =>
          sub.selectFrom("collections as c").select("c.id").where("c.slug", "in", collections.slugs),
        );
  const query = db
    .selectFrom(pinned.as("p"))
    .crossJoin("posts as r")
    .whereRef("r.id", "=", "p.thread_id")
    .where("r.reply_to_id", "is", null);
  return query as unknown as RootSource;
}

/** Roots aliased `r` like {@link rootsOf}, read through the partial index `index` (see `Segment.index`). */
function rootsThrough(db: Kysely<Database>, index: string): RootSource {
  const from = detectDialect(db).tableIndexedBy("posts", "r", index) as unknown as "posts as r";
  return db.selectFrom(from).where("r.reply_to_id", "is", null);
}

const collectionOrders: Record<string, CollectionListOrder> = {
  newest: "newest",
  oldest: "oldest",
  rating_desc: "rating",
};

/**
 * The segments of a list's order. With a `collection` filter (spec § Threads rule 4): one
 * collection and no `sort` lists in the collection's `sortOrder`, several by activity, both with
 * the collections' pins on top; `activity`, `oldest` and `rating` keep those pins; `published`
 * and `updated` treat the collection as a plain filter. Undefined when the one named collection
 * does not exist (the list is empty).
 */
async function segmentsOf(db: Kysely<Database>, query: ThreadListQuery): Promise<Segment[] | undefined> {
  const { status, collections: slugs } = query.filter;
  if (!slugs || query.sort === "published" || query.sort === "updated")
    return segmentsFor(query.sort, status);
  let order: CollectionListOrder;
  if (query.defaultSort && slugs.length === 1) {
    const collection = await db
      .selectFrom("collections")
      .select("sort_order")
      .where("slug", "=", slugs[0] as string)
      .executeTakeFirst();
    if (!collection) return undefined;
    order = collectionOrders[collection.sort_order] ?? "newest";
  } else {
    order = query.sort === "oldest" ? "oldest" : query.sort === "rating" ? "rating" : "activity";
  }
  return collectionSegmentsFor(order, status, { slugs });
}
