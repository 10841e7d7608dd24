/**
 * The Node.js entry of core (`@quire/core/node`): opening a database through the native drivers
 * (better-sqlite3, node-postgres). Kept out of the main entry so a Worker or edge bundle of core
 * pulls in no native driver; there, build a Kysely instance on the platform's own dialect and pass
 * it to `createEngine`.
 */
export { type OpenDatabaseOptions, openDatabase } from "./db/open.js";
/** Prepare once, for a Kysely instance built by hand: see docs/architecture.md § Database. */
export { namedStatements } from "./db/pg-named.js";
export { type CachingSqliteDatabase, cachedStatements } from "./db/statement-cache.js";
/**
 * The search index a SQLite file opened by `openDatabase` keeps beside it (`caughtUp()` waits until
 * every committed post is indexed): see docs/search.md § SQLite: the index beside the file.
 */
export { searchIndexOf } from "./search/search-index-registry.js";
export type { SqliteSearchIndex } from "./search/sqlite-search-index.js";
