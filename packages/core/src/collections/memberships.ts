import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from "kysely";
import { compiled } from "../db/compiled.js";
import type { Dialect } from "../db/dialect.js";
import type { Database, PostsTable } from "../db/schema.js";
import { invalidField } from "../errors.js";

// The seam between posts/threads and the collections resource: a Thread's collections (keyed by
// its root ID), the copies of the root's figures the memberships keep, and the per-collection
// figures GET /api/collections reads. Every write here runs inside its caller's transaction.

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

/**
 * The entries a request sets: `collectionEntries` when sent, else `collectionIds` as bare entries;
 * a collection named twice counts once (its first entry).
 */
function entriesOf(input: CollectionInput): CollectionEntryInput[] {
  const entries =
    input.collectionEntries ?? input.collectionIds?.map((collectionId) => ({ collectionId })) ?? [];
  const seen = new Set<string>();
  return entries.filter((entry) => !seen.has(entry.collectionId) && seen.add(entry.collectionId));
}

/** The request field a collection problem is reported on: the field that won. */
function fieldOf(input: CollectionInput): string {
  return input.collectionEntries !== undefined ? "collectionEntries" : "collectionIds";
}

/**
 * Checks the collections a Thread root names: each must exist, else 400 on the field sent
 * (`collectionIds`, or `collectionEntries` when that was sent) — not a silent drop. Call it before
 * any write of the request.
 */
export async function checkCollectionInput(db: Kysely<Database>, input: CollectionInput): Promise<void> {
  const ids = entriesOf(input).map((entry) => entry.collectionId);
  if (ids.length === 0) return;
  const found = await db.selectFrom("collections").select("id").where("id", "in", ids).execute();
  const known = new Set(found.map((row) => row.id));
  const unknown = ids.find((id) => !known.has(id));
  if (unknown) throw invalidField(fieldOf(input), `Unknown collection ${unknown}`);
}

/** The root figures a membership keeps a copy of. */
interface ThreadSnapshot {
  thread_status: string;
  thread_language: string;
  thread_activity_at: number;
}

async function snapshotOf(db: Kysely<Database>, threadId: string): Promise<ThreadSnapshot | undefined> {
  const root = await db
    .selectFrom("posts")
    .select(["status", "language", "last_activity_at"])
    .where("id", "=", threadId)
    .whereRef("id", "=", "thread_id")
    .executeTakeFirst();
  if (!root) return undefined;
  return {
    thread_status: root.status,
    thread_language: root.language ?? "",
    thread_activity_at: Number(root.last_activity_at),
  };
}

/**
 * Locks collection rows in ID order (PostgreSQL; SQLite's write lock already serialises), so the
 * writers of one collection's memberships and figures queue behind each other. Lock order across
 * the engine: a Thread's root row first (the post write or membership change), then collections.
 */
export async function lockCollections(
  ctx: { db: Kysely<Database>; dialect: Dialect },
  collectionIds: Iterable<string>,
): Promise<void> {
  for (const id of [...new Set(collectionIds)].sort()) {
    await ctx.dialect.lockRow(ctx.db, { table: "collections", id });
  }
}

/**
 * Recomputes the figures of these collections from their memberships' own index: per language,
 * published Threads and the newest activity. Hold the collections' locks (see {@link lockCollections}).
 */
export async function refreshCollectionFigures(db: Kysely<Database>, collectionIds: string[]): Promise<void> {
  const ids = [...new Set(collectionIds)];
  if (ids.length === 0) return;
  await db.deleteFrom("collection_figures").where("collection_id", "in", ids).execute();
  await db
    .insertInto("collection_figures")
    .columns(["collection_id", "language", "thread_count", "recent_activity_at"])
    .expression(
      db
        .selectFrom("collection_threads")
        .select((eb) => [
          "collection_id",
          "thread_language",
          eb.fn.countAll<number>().as("thread_count"),
          eb.fn.max("thread_activity_at").as("recent_activity_at"),
        ])
        .where("collection_id", "in", ids)
        .where("thread_status", "=", "published")
        .groupBy(["collection_id", "thread_language"]),
    )
    .execute();
}

/**
 * Makes the request's collections the Thread's whole collection set, inside the post write's
 * transaction (input already checked by {@link checkCollectionInput}; the Thread already locked).
 * `collectionIds` keeps a membership that stays (its time, position and pin); `collectionEntries`
 * sets the fields an entry sends. @see spec § PUT /api/posts/:id rule 3
 */
export async function setThreadCollections(
  ctx: { db: Kysely<Database>; dialect: Dialect },
  input: { threadId: string; collections: CollectionInput; now: number },
): Promise<void> {
  if (!sendsCollections(input.collections)) return;
  const { db } = ctx;
  const entries = entriesOf(input.collections);
  const current = await db
    .selectFrom("collection_threads")
    .select("collection_id")
    .where("thread_id", "=", input.threadId)
    .execute();
  const before = new Set(current.map((row) => row.collection_id));
  const wanted = new Set(entries.map((entry) => entry.collectionId));
  const touched = [...new Set([...before, ...wanted])];
  if (touched.length === 0) return;
  await lockCollections(ctx, touched);
  // A collection deleted since the check (it held its lock while deleting) is unknown now.
  await checkCollectionInput(db, input.collections);

  const removed = [...before].filter((id) => !wanted.has(id));
  if (removed.length > 0) {
    await db
      .deleteFrom("collection_threads")
      .where("thread_id", "=", input.threadId)
      .where("collection_id", "in", removed)
      .execute();
  }
  const snapshot = await snapshotOf(db, input.threadId);
  if (!snapshot) throw new Error(`Thread ${input.threadId} has no root`);
  const explicit = input.collections.collectionEntries !== undefined;
  for (const entry of entries) {
    const position = entry.position === undefined ? null : String(entry.position);
    if (!before.has(entry.collectionId)) {
      await db
        .insertInto("collection_threads")
        .values({
          collection_id: entry.collectionId,
          thread_id: input.threadId,
          created_at: entry.createdAt ?? input.now,
          position,
          pinned_at: entry.pinnedAt ?? null,
          ...snapshot,
        })
        .execute();
    } else if (explicit) {
      const changes: { created_at?: number; position?: string | null; pinned_at?: number | null } = {};
      if (entry.createdAt !== undefined) changes.created_at = entry.createdAt;
      if (entry.position !== undefined) changes.position = position;
      if (entry.pinnedAt !== undefined) changes.pinned_at = entry.pinnedAt;
      if (Object.keys(changes).length > 0) {
        await db
          .updateTable("collection_threads")
          .set(changes)
          .where("collection_id", "=", entry.collectionId)
          .where("thread_id", "=", input.threadId)
          .execute();
      }
    }
  }
  await refreshCollectionFigures(db, touched);
}

/**
 * Keeps a Thread's memberships in step with its root after a post write (the Thread locked): the
 * copied status, language and activity, and the figures of its collections when one changed. A
 * Thread whose root is gone leaves its collections. Called by the posts' figure refresh and by
 * the root's deletion; cheap when the Thread is in no collection.
 */
export async function syncThreadMemberships(
  ctx: { db: Kysely<Database>; dialect: Dialect },
  threadId: string,
): Promise<void> {
  const { db } = ctx;
  const rows = await membershipsOfThread.execute(db, { threadId });
  if (rows.length === 0) return;
  const snapshot = await snapshotOf(db, threadId);
  const stale = rows.filter(
    (row) =>
      !snapshot ||
      row.thread_status !== snapshot.thread_status ||
      row.thread_language !== snapshot.thread_language ||
      Number(row.thread_activity_at) !== snapshot.thread_activity_at,
  );
  if (stale.length === 0) return;
  const ids = stale.map((row) => row.collection_id);
  await lockCollections(ctx, ids);
  if (snapshot) {
    await db
      .updateTable("collection_threads")
      .set(snapshot)
      .where("thread_id", "=", threadId)
      .where("collection_id", "in", ids)
      .execute();
  } else {
    await db
      .deleteFrom("collection_threads")
      .where("thread_id", "=", threadId)
      .where("collection_id", "in", ids)
      .execute();
  }
  await refreshCollectionFigures(db, ids);
}

/** Compiled once (db/compiled.ts): every write to a Thread's posts asks it. */
const membershipsOfThread = compiled<{ threadId: string }>()((db, p) =>
  db
    .selectFrom("collection_threads")
    .select(["collection_id", "thread_status", "thread_language", "thread_activity_at"])
    .where("thread_id", "=", p.value("threadId")),
);

/** The collection IDs of many Threads in one query, by Thread (root) ID; a Thread in none is absent. */
export async function collectionIdsOf(
  db: Kysely<Database>,
  threadIds: string[],
): Promise<Map<string, string[]>> {
  const byThread = new Map<string, string[]>();
  if (threadIds.length === 0) return byThread;
  const rows = await collectionIdsOfThreads.execute(db, { threadIds: [...new Set(threadIds)] });
  for (const row of rows) {
    const list = byThread.get(row.thread_id);
    if (list) list.push(row.collection_id);
    else byThread.set(row.thread_id, [row.collection_id]);
  }
  return byThread;
}

/** Compiled once (db/compiled.ts), the Threads as one list parameter: every read of a post asks it. */
const collectionIdsOfThreads = compiled<{ threadIds: string[] }>()((db, p) =>
  db
    .selectFrom("collection_threads")
    .select(["thread_id", "collection_id"])
    .where("thread_id", "in", p.list("threadIds"))
    .orderBy("thread_id")
    .orderBy("collection_id"),
);

/** Root rows aliased `r`. */
type RootScope = ExpressionBuilder<Database & { r: PostsTable }, "r">;

/** Which collections a Thread-list condition names: slugs (the `collection` parameter) or IDs. */
export type CollectionRef = { slugs: string[] } | { ids: string[] };

/**
 * The root IDs of the named collections' Threads, as an uncorrelated subquery: the planner may read
 * the memberships first (a small collection in a large site) or probe them while walking an
 * order's index (a large one).
 */
function membersOf(eb: RootScope, ref: CollectionRef) {
  let members = eb.selectFrom("collection_threads as m").select("m.thread_id");
  members =
    "ids" in ref
      ? members.where("m.collection_id", "in", ref.ids)
      : members.where("m.collection_id", "in", (sub) =>
          sub.selectFrom("collections as c").select("c.id").where("c.slug", "in", ref.slugs),
        );
  return members;
}

/**
 * The Thread-list condition "in any of these collections", by slug, on root rows aliased `r`.
 * @see spec § Threads rule 6 (an unknown slug gives an empty result)
 */
export function collectionFilter(eb: RootScope, slugs: string[]): Expression<SqlBool> {
  if (slugs.length === 0) return sql<SqlBool>`1 = 0`;
  return eb("r.id", "in", membersOf(eb, { slugs }));
}

/** The Thread-list condition "in any of these collections", by `col_` ID (smart collections' selection). */
export function collectionIdFilter(eb: RootScope, ids: string[]): Expression<SqlBool> {
  if (ids.length === 0) return sql<SqlBool>`1 = 0`;
  return eb("r.id", "in", membersOf(eb, { ids }));
}

/**
 * The condition "pinned in none of these collections" on root rows aliased `r`: a correlated
 * `NOT EXISTS`, which PostgreSQL plans as an anti-join (a `NOT IN` subquery is checked row by row
 * on a scan of every root instead) and SQLite as one probe of the memberships' Thread index.
 */
export function collectionUnpinnedFilter(eb: RootScope, ref: CollectionRef): Expression<SqlBool> {
  let pinned = eb
    .selectFrom("collection_threads as pm")
    .select("pm.thread_id")
    .whereRef("pm.thread_id", "=", "r.id")
    .where("pm.pinned_at", "is not", null);
  pinned =
    "ids" in ref
      ? pinned.where("pm.collection_id", "in", ref.ids)
      : pinned.where("pm.collection_id", "in", (sub) =>
          sub.selectFrom("collections as pc").select("pc.id").where("pc.slug", "in", ref.slugs),
        );
  return eb.not(eb.exists(pinned));
}
