import { type Kysely, sql } from "kysely";
import { searchTextOf } from "../../search/search-text.js";
import { detectDialect } from "../dialect.js";

/**
 * Search: `post_search` holds the folded search text of every published post (drafts are left
 * out), kept in step by the post writes. SQLite indexes it with an FTS5 trigram table whose
 * content is `post_search` (triggers keep the two in the same transaction); PostgreSQL with a
 * pg_trgm GIN index, the extension installed in `public` once per database. Existing published
 * posts are indexed here. @see docs/search.md
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const dialect = detectDialect(db);
  if (dialect.name === "sqlite") {
    // An explicit integer key: FTS5 points at it, and VACUUM never renumbers it.
    await sql`create table post_search (
      id integer primary key,
      post_id text not null unique,
      search_text text not null
    )`.execute(db);
    await sql`create virtual table post_search_fts using fts5(
      search_text, content='post_search', content_rowid='id', tokenize='trigram case_sensitive 1'
    )`.execute(db);
    await sql`create trigger post_search_ai after insert on post_search begin
      insert into post_search_fts(rowid, search_text) values (new.id, new.search_text);
    end`.execute(db);
    await sql`create trigger post_search_ad after delete on post_search begin
      insert into post_search_fts(post_search_fts, rowid, search_text) values ('delete', old.id, old.search_text);
    end`.execute(db);
    await sql`create trigger post_search_au after update on post_search begin
      insert into post_search_fts(post_search_fts, rowid, search_text) values ('delete', old.id, old.search_text);
      insert into post_search_fts(rowid, search_text) values (new.id, new.search_text);
    end`.execute(db);
  } else {
    // One database may hold many sites' schemas: the extension goes in `public`, not in a site's
    // schema (dropping that schema would take every site's index with it). Installing waits on a
    // database-wide lock, so two sites migrating at once do not both create it.
    await sql`select pg_advisory_xact_lock(hashtext('quire:pg_trgm'))`.execute(db);
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    const found = await sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
      where e.extname = 'pg_trgm'`.execute(db);
    const schema = found.rows[0]?.schema ?? "public";
    // `id` orders rows by when they were last written, as SQLite's integer key does.
    await sql`create table post_search (
      id bigint generated always as identity primary key,
      post_id text not null unique,
      search_text text not null
    )`.execute(db);
    // Built after the backfill: one pass over the rows rather than an index update per row.
    await backfill(db);
    await sql`create index post_search_trgm on post_search using gin (search_text ${sql.id(schema)}.gin_trgm_ops)`.execute(
      db,
    );
    return;
  }
  await backfill(db);
}

const batchSize = 500;

/**
 * Indexes the published posts in publication order, oldest first, so the write order search ranks
 * its window by starts out as the publication order (docs/search.md § Ranking).
 */
async function backfill(db: Kysely<unknown>): Promise<void> {
  let after: { publishedAt: number; id: string } | null = null;
  for (;;) {
    const rows: { rows: BackfillRow[] } = await sql<BackfillRow>`
      select id, published_at, title, source_name, quote_text, body_text, summary, url, source_url
      from posts
      where status = 'published'
      ${after ? sql`and (published_at > ${after.publishedAt} or (published_at = ${after.publishedAt} and id > ${after.id}))` : sql``}
      order by published_at, id limit ${batchSize}`.execute(db);
    const last = rows.rows[rows.rows.length - 1];
    if (!last) return;
    const values = rows.rows.map((row) => sql`(${row.id}, ${searchTextOf(row)})`);
    await sql`insert into post_search (post_id, search_text) values ${sql.join(values)}`.execute(db);
    after = { publishedAt: Number(last.published_at), id: last.id };
  }
}

interface BackfillRow {
  id: string;
  published_at: number | string;
  title: string | null;
  source_name: string | null;
  quote_text: string | null;
  body_text: string | null;
  summary: string | null;
  url: string | null;
  source_url: string | null;
}
