import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import type { ThreadListQuery } from "./thread-filter.js";
import { filterConditions } from "./thread-filter.js";
import {
  afterCondition,
  decodeSegmentCursor,
  encodeSegmentCursor,
  type Segment,
  type SegmentPosition,
  segmentsFor,
} from "./thread-order.js";
import { type StoredPost, selectRoots } from "./thread-rows.js";

/** One page of roots and the cursor of the next page (null on the last page). */
export interface RootPage {
  roots: StoredPost[];
  nextCursor: string | null;
}

/**
 * One page of a Thread list's roots by keyset: each segment of the order is read from the cursor's
 * position with `limit + 1` rows at most (one query per segment, two at most), so a deep page costs
 * what the first one does. The extra row only tells whether another page exists.
 * @see spec § Pagination, docs/threads.md § Orders
 */
export async function listRoots(
  db: Kysely<Database>,
  query: ThreadListQuery,
  page: { cursor?: string | undefined; limit: number },
): Promise<RootPage> {
  const segments = segmentsFor(query.sort, query.filter.status);
  const start: SegmentPosition | undefined = page.cursor
    ? decodeSegmentCursor(page.cursor, segments)
    : undefined;
  const found: { row: StoredPost; segment: Segment }[] = [];
  for (let index = start?.segment ?? 0; index < segments.length && found.length <= page.limit; index++) {
    const segment = segments[index] as Segment;
    const after = index === start?.segment ? start.keys : undefined;
    const rows = await readSegment(db, query, segment, after, page.limit + 1 - found.length);
    for (const row of rows) found.push({ row, segment });
  }
  const shown = found.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    roots: shown.map((entry) => entry.row),
    nextCursor: found.length > page.limit && last ? encodeSegmentCursor(last.segment, last.row) : null,
  };
}

function readSegment(
  db: Kysely<Database>,
  query: ThreadListQuery,
  segment: Segment,
  after: (string | number)[] | undefined,
  limit: number,
): Promise<StoredPost[]> {
  let select = selectRoots(db).where((eb) => eb.and(filterConditions(eb, query.filter)));
  if (segment.where) select = select.where(segment.where);
  if (after) select = select.where((eb) => afterCondition(eb, segment, after));
  for (const column of segment.columns) select = select.orderBy(`r.${column}`, segment.direction);
  return select.orderBy("r.id", segment.direction).limit(limit).execute();
}
