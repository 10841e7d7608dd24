// biome-ignore-all lint/suspicious/noExplicitAny: works on any database shape
import type { Kysely } from "kysely";
import type { SqliteSearchIndex } from "./sqlite-search-index.js";

/**
 * Which database has a search index kept beside its file. Apart from the index itself, which starts
 * a `node:worker_threads` thread: a search (search/search-query.ts) asks here, so core's main entry
 * loads no Node-only module for it and still bundles for a Worker or an edge runtime; only
 * `openDatabase` (`@quire/core/node`) makes and registers an index.
 */
const indexes = new WeakMap<Kysely<any>, SqliteSearchIndex>();

/** Tells searches on `db` to use `index` (db/open.ts, for a SQLite file it opened). */
export function registerSearchIndex(db: Kysely<any>, index: SqliteSearchIndex): void {
  indexes.set(db, index);
}

/**
 * The search index kept beside `db`'s file, if `db` was opened by `openDatabase` on a SQLite file
 * (transactions of it included: they share the root instance's index).
 */
export function searchIndexOf(db: Kysely<any>): SqliteSearchIndex | undefined {
  return indexes.get(db);
}
