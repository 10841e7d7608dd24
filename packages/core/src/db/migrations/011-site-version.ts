import { type Kysely, sql } from "kysely";
import { detectDialect } from "../dialect.js";
import { addSiteVersionTriggers, createSiteVersionFunction } from "../site-version.js";

/**
 * The site content version: row `site` of `content_versions`, moved in the writing transaction by
 * every write to a table public answers or the settings are made of, so caches keyed by it (the
 * settings, the HTTP response cache, smart collection figures) see every write of every process on
 * their next read. @see db/site-version.ts, docs/caching.md
 */
// The list as it stood when this migration was written, kept here on purpose: a migration must do
// the same thing forever, so later tables are added by later migrations (db/site-version.ts).
const tables = [
  "posts",
  "media",
  "site_addresses",
  "custom_urls",
  "settings",
  "smart_collections",
  "nav_items",
  "collections",
  "collection_threads",
  "collection_figures",
  "directory_items",
  "post_search",
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`insert into content_versions (name, version) values ('site', 0)`.execute(db);
  const dialect = detectDialect(db).name;
  if (dialect === "postgres") await createSiteVersionFunction(db);
  await addSiteVersionTriggers(db, dialect, tables);
}
