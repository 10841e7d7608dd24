import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";
import { type KeysetPage, pageBySegments } from "../pagination/keyset.js";
import type { ThreadListQuery } from "./thread-filter.js";
import { filterConditions } from "./thread-filter.js";
import { segmentsFor } from "./thread-order.js";
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
  const roots = selectRoots(db).where((eb) => eb.and(filterConditions(eb, query.filter)));
  const segments = segmentsFor(query.sort, query.filter.status).map((order) => ({
    order,
    query: order.where ? roots.where(order.where) : roots,
  }));
  const { rows, nextCursor }: KeysetPage<StoredPost> = await pageBySegments(segments, page);
  return { roots: rows, nextCursor };
}
