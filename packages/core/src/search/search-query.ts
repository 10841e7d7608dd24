import { type Kysely, type RawBuilder, sql } from "kysely";
import type { DialectName } from "../db/dialect.js";
import type { Database } from "../db/schema.js";
import { isIndexable } from "./search-text.js";

/**
 * The IDs of the published posts whose search text holds every term, best first, at most `limit`.
 * Terms are folded already (search-text.ts). The one place search differs between databases:
 * chosen by the dialect's name, as `ctx.dialect` is chosen once per engine.
 */
export type FindMatches = (
  db: Kysely<Database>,
  terms: readonly string[],
  limit: number,
) => Promise<string[]>;

/**
 * SQLite: the terms of three or more characters go to the FTS5 trigram index, each as a quoted
 * phrase (a `"` doubled), so `*`, `-`, `:`, `NEAR`, `AND`, `OR` and parentheses are plain text,
 * and are ranked by bm25; shorter terms are a substring test (`instr`) on the matched rows. A query
 * of short terms only scans the search text and lists the newest posts first.
 */
const sqliteMatches: FindMatches = async (db, terms, limit) => {
  const indexed = terms.filter(isIndexable);
  const short = terms.filter((term) => !isIndexable(term));
  const contains = short.map((term) => sql`and instr(s.search_text, ${term}) > 0`);
  if (indexed.length > 0) {
    const match = indexed.map((term) => `"${term.replaceAll('"', '""')}"`).join(" ");
    const found = await sql<{ post_id: string }>`
      select s.post_id from post_search_fts f join post_search s on s.id = f.rowid
      where post_search_fts match ${match} ${join(contains)}
      order by f.rank, s.id limit ${limit}`.execute(db);
    return found.rows.map((row) => row.post_id);
  }
  const found = await sql<{ post_id: string }>`
    select s.post_id from post_search s join posts p on p.id = s.post_id
    where 1 = 1 ${join(contains)}
    order by p.published_at desc, p.id desc limit ${limit}`.execute(db);
  return found.rows.map((row) => row.post_id);
};

/** Average search-text length assumed by the PostgreSQL score's length normalisation. */
const typicalLength = 400;

/**
 * PostgreSQL: every term is a `LIKE '%term%'` (with `\`, `%` and `_` escaped) on the search text,
 * which the pg_trgm GIN index answers for terms of three or more characters and rechecks exactly.
 * Ranked by a bm25-style term-frequency score (occurrences of each term, saturating, against the
 * text's length); a query of short terms only lists the newest posts first, as on SQLite.
 */
const postgresMatches: FindMatches = async (db, terms, limit) => {
  const likes = terms.map((term) => sql`and s.search_text like ${`%${escapeLike(term)}%`} escape '\\'`);
  if (terms.some(isIndexable)) {
    const scores = terms.map((term) => {
      const occurrences = sql`((length(s.search_text) - length(replace(s.search_text, ${term}, ''))) / ${[...term].length}::float8)`;
      return sql`(${occurrences} / (${occurrences} + 1.2 * (0.25 + 0.75 * length(s.search_text) / ${typicalLength}::float8)))`;
    });
    const found = await sql<{ post_id: string }>`
      select s.post_id from post_search s
      where true ${join(likes)}
      order by ${sql.join(scores, sql` + `)} desc, s.post_id limit ${limit}`.execute(db);
    return found.rows.map((row) => row.post_id);
  }
  const found = await sql<{ post_id: string }>`
    select s.post_id from post_search s join posts p on p.id = s.post_id
    where true ${join(likes)}
    order by p.published_at desc, p.id desc limit ${limit}`.execute(db);
  return found.rows.map((row) => row.post_id);
};

/** The search query for a dialect. */
export const findMatches: Record<DialectName, FindMatches> = {
  sqlite: sqliteMatches,
  postgres: postgresMatches,
};

function join(parts: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return parts.length === 0 ? sql`` : sql.join(parts, sql` `);
}

function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (char) => `\\${char}`);
}
