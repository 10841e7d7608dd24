import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
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
 * position with the rows the page still has room for and one more (one statement per segment
 * read), so a deep page costs what the first one does. The extra row only tells whether another
 * page exists. A page whose cursor stands past the pinned section reads only the segments left.
 *
 * Lists without a collection filter run as compiled statements (db/compiled.ts), one per shape of
 * the read (order, segment, whether a cursor applies, which filters are set), their values passed
 * as parameters: no building or compiling of the query per call, and one SQL text per shape for
 * the driver to keep prepared. (One `union all` statement for the pinned section and the rest was
 * measured slower on SQLite: it sorts the full rows of both sections again; see bench/README.md.)
 * `columns` chooses what is read of each root (see {@link ReadColumns}): all of it by default, only
 * what the reading view shows for a public list.
 * @see spec § Pagination, docs/threads.md § Orders, docs/collections.md § Thread lists by collection
 */
export async function listRoots(
  db: Kysely<Database>,
  query: ThreadListQuery,
  page: { cursor?: string | undefined; limit: number },
  columns: ReadColumns = "all",
): Promise<RootPage> {
  const order = await segmentsOf(db, query);
  if (!order) return { roots: [], nextCursor: null };
  const start = page.cursor ? cursorStart(page.cursor, order) : undefined;
  const first = start?.segment ?? 0;
  const rows: ListedRoot[] = [];
  let lastOrder: Segment | undefined;
  for (let index = first; index < order.length; index++) {
    const after = index === first ? start?.keys : undefined;
    const take = page.limit - rows.length + 1;
    const statement = compiledBranch(query.filter, order, index, after !== undefined, columns);
    const read = statement
      ? await statement.execute(db, branchParams(query.filter, after, take))
      : await branchQuery(db, { filter: query.filter, order, index, after, take, columns }).execute();
    const more = read.length === take;
    if (read.length > (more ? 1 : 0)) lastOrder = order[index];
    rows.push(...(more ? read.slice(0, -1) : read));
    if (more) {
      // The page is full: the cursor stands after its last row, in the order of the segment that
      // row came from.
      const last = rows.at(-1);
      return { roots: rows, nextCursor: last && lastOrder ? cursorAfter(lastOrder, last) : null };
    }
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

/** What one segment's statement is built from; values are real ones or a compiled statement's placeholders. */
interface BranchSpec {
  filter: ThreadFilter;
  order: Segment[];
  /** The segment read. */
  index: number;
  /** The cursor's key values, within this segment. */
  after?: KeyValues | undefined;
  /** Rows to read: what the page has room for, and one. */
  take: number;
  /** The columns read of each root. */
  columns: ReadColumns;
}

/**
 * One segment's roots: its source, the filter, its own condition, the cursor's position, its
 * order, `take` rows. Each row carries `in_collections` (see {@link ListedRoot}).
 */
function branchQuery(db: Kysely<Database>, spec: BranchSpec) {
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
  return branch.limit(spec.take) as unknown as SelectQueryBuilder<Database, "posts", ListedRoot>;
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

/** The parameters of a compiled segment statement: the filter's values, the cursor's keys, `take`. */
type BranchParams = Record<string, string | number>;

/** Compiled segment statements by shape (see {@link shapeOf}); a bounded number, oldest dropped first. */
const statements = new Map<string, CompiledStatement<BranchParams, ListedRoot>>();
const maxStatements = 200;

/**
 * The compiled statement of a segment read of this shape, or undefined for a list filtered by
 * collections (their slugs or IDs are lists; those reads are built per call).
 */
function compiledBranch(
  filter: ThreadFilter,
  order: Segment[],
  index: number,
  hasCursor: boolean,
  columns: ReadColumns,
): CompiledStatement<BranchParams, ListedRoot> | undefined {
  if (filter.collections || filter.collectionIds) return undefined;
  const shape = `${columns}|${shapeOf(filter, order, index, hasCursor)}`;
  const found = statements.get(shape);
  if (found) return found;
  const statement = compiled<BranchParams>()((db, p) =>
    branchQuery(db, {
      filter: placeholderFilter(filter, p),
      order,
      index,
      after: hasCursor ? order[index]?.keys.map((_, i) => p.value(`k${i}`)) : undefined,
      take: p.value("take") as number,
      columns,
    }),
  );
  if (statements.size >= maxStatements) statements.delete(statements.keys().next().value as string);
  statements.set(shape, statement);
  return statement;
}

/**
 * What decides a segment statement's SQL text: the order's segments (their names fix them for
 * lists without collections), the segment read, whether a cursor applies in it, and which filters are
 * set and how (values excluded: they are parameters; the `media` kinds mask is written as a constant).
 */
function shapeOf(filter: ThreadFilter, order: Segment[], index: number, hasCursor: boolean): string {
  return [
    order.map((segment) => segment.name).join(","),
    index,
    hasCursor ? "c" : "",
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
function placeholderFilter(filter: ThreadFilter, p: Params<BranchParams>): ThreadFilter {
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

/** The values of a compiled segment statement's placeholders. */
function branchParams(filter: ThreadFilter, after: KeyValues | undefined, take: number): BranchParams {
  const params: BranchParams = { status: filter.status, take };
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
