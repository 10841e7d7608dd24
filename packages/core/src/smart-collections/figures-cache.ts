import type { Kysely } from "kysely";
import type { Database } from "../db/schema.js";

/** How many answers an engine's database keeps (one per caller kind, language and set of selections). */
const maxEntries = 32;

/** Cached answers by database handle: the cache lives and dies with the engine's Kysely instance. */
const caches = new WeakMap<Kysely<Database>, Map<string, unknown>>();

/**
 * `compute()`, cached under `key` until the `threads` content version moves (any write to posts or
 * collection memberships, counted by the triggers of migration 006). The version is read BEFORE
 * computing: an answer is never older than the version it is stored under (a write committing in
 * between only makes it newer, and the next read recomputes). Another process's writes move the
 * same counter, so every engine on the database sees them.
 * @see docs/smart-collections.md § Counting
 */
export async function cachedByContentVersion<T>(
  db: Kysely<Database>,
  key: string,
  compute: () => Promise<T>,
): Promise<T> {
  const row = await db
    .selectFrom("content_versions")
    .select("version")
    .where("name", "=", "threads")
    .executeTakeFirst();
  const fullKey = `${String(row?.version ?? "none")}\u0000${key}`;
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  if (cache.has(fullKey)) return cache.get(fullKey) as T;
  const value = await compute();
  if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
  cache.set(fullKey, value);
  return value;
}
