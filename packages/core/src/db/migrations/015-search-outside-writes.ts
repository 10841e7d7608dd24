import { randomInt } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { detectDialect } from "../dialect.js";
import { addSiteVersionTriggers } from "../site-version.js";

/**
 * SQLite: the trigram index leaves the writing transaction (docs/search.md § SQLite: the index
 * beside the file). `post_search` keeps the search text, now under an AUTOINCREMENT key, so a key
 * is never given to a second row: the index, kept in a file beside the database by a background
 * thread, records how far up the keys it has read, and every row above that mark is searched by a
 * plain scan. The FTS5 table and the triggers that filled it inside every write go. Row
 * `search_identity` of `content_versions` names this database, so an index file left beside
 * another database (a copy, a restore) is recognised and rebuilt. Keys are kept as they were.
 * PostgreSQL is unchanged: its pg_trgm index already lives with the rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = detectDialect(db).name;
  if (dialect !== "sqlite") return;
  await sql`drop trigger if exists post_search_ai`.execute(db);
  await sql`drop trigger if exists post_search_ad`.execute(db);
  await sql`drop trigger if exists post_search_au`.execute(db);
  await sql`drop table if exists post_search_fts`.execute(db);
  await sql`create table post_search_keyed (
    id integer primary key autoincrement,
    post_id text not null unique,
    search_text text not null
  )`.execute(db);
  await sql`insert into post_search_keyed (id, post_id, search_text)
    select id, post_id, search_text from post_search order by id`.execute(db);
  // Dropping the table drops its site-version triggers; they are made again on the new one.
  await sql`drop table post_search`.execute(db);
  await sql`alter table post_search_keyed rename to post_search`.execute(db);
  await addSiteVersionTriggers(db, "sqlite", ["post_search"]);
  await sql`insert into content_versions (name, version) values ('search_identity', ${randomInt(1, 2 ** 47)})`.execute(
    db,
  );
}
