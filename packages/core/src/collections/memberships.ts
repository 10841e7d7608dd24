import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from "kysely";
import type { Database, PostsTable } from "../db/schema.js";
import { invalidField } from "../errors.js";

// The seam between posts/threads and the collections resource. No collection exists until that
// resource lands, so today: any named collection is unknown, a Thread belongs to none, and a
// collection filter matches nothing. Filling these functions in is the whole of the change there.

/** One `collectionEntries` item as a post request sends it. @see spec § POST /api/posts */
export interface CollectionEntryInput {
  collectionId: string;
  createdAt?: number | undefined;
  position?: string | number | undefined;
  pinnedAt?: number | null | undefined;
}

/** What a post request says about its Thread's collections. */
export interface CollectionInput {
  collectionIds?: string[] | undefined;
  /** Wins over `collectionIds` when sent. */
  collectionEntries?: CollectionEntryInput[] | undefined;
}

/** True when a request sends collection input at all (even an empty list, which clears the set). */
export function sendsCollections(input: CollectionInput): boolean {
  return input.collectionIds !== undefined || input.collectionEntries !== undefined;
}

/** True when a request names any collection, in either field. @see spec § POST /api/posts rule 4 */
export function namesCollections(input: CollectionInput): boolean {
  return (input.collectionIds?.length ?? 0) > 0 || (input.collectionEntries?.length ?? 0) > 0;
}

/** The entries a request sets: `collectionEntries` when sent, else `collectionIds` as bare entries. */
function entriesOf(input: CollectionInput): CollectionEntryInput[] {
  return input.collectionEntries ?? input.collectionIds?.map((collectionId) => ({ collectionId })) ?? [];
}

/**
 * Checks the collections a Thread root names: each must exist, else 400 on `collectionIds` (not a
 * silent drop). Call it before any write of the request.
 */
export async function checkCollectionInput(_db: Kysely<Database>, input: CollectionInput): Promise<void> {
  const [unknown] = entriesOf(input);
  if (unknown) throw invalidField("collectionIds", `Unknown collection ${unknown.collectionId}`);
}

/**
 * Makes the request's collections the Thread's whole collection set, inside the post write's
 * transaction (input already checked by {@link checkCollectionInput}). @see spec § PUT /api/posts/:id rule 3
 */
export async function setThreadCollections(
  _db: Kysely<Database>,
  _input: { threadId: string; collections: CollectionInput; now: number },
): Promise<void> {
  // Nothing to store: checkCollectionInput let through only empty sets, and no membership exists.
}

/** The collection IDs of many Threads in one query, by Thread (root) ID; a Thread in none is absent. */
export async function collectionIdsOf(
  _db: Kysely<Database>,
  _threadIds: string[],
): Promise<Map<string, string[]>> {
  return new Map();
}

/**
 * The Thread-list condition "in any of these collections", by slug, on root rows aliased `r`.
 * @see spec § Threads rule 6 (an unknown slug gives an empty result)
 */
export function collectionFilter(
  _eb: ExpressionBuilder<Database & { r: PostsTable }, "r">,
  _slugs: string[],
): Expression<SqlBool> {
  return sql<SqlBool>`1 = 0`;
}
