import { type Kysely, type RawBuilder, sql } from "kysely";
import type { DialectName } from "../db/dialect.js";
import type { Database } from "../db/schema.js";
import { searchIndexOf } from "./search-index-registry.js";

/**
 * How many matches a search ranks at most: the most recently written ones. Ranking every match of
 * a word found in half the posts costs a pass over all of them; this bound keeps a search's cost
 * flat whatever the word. @see docs/search.md § Ranking
 */
export const rankingWindow = 200;

/** A post whose search text holds every term, with its position in write order (higher is newer). */
export interface Candidate {
  seq: number;
  post_id: string;
  search_text: string;
}

/**
 * The published posts whose search text holds every term, newest written first, at most
 * `rankingWindow`. Terms are folded already (search-text.ts). The one place search differs between
 * databases: chosen by the dialect's name, as `ctx.dialect` is chosen once per engine. Both answer
 * with exact substring tests on the same folded text, so they find the same posts.
 */
export type FindCandidates = (db: Kysely<Database>, terms: readonly string[]) => Promise<Candidate[]>;

/**
 * SQLite, on a file opened by `openDatabase`: the index kept beside the file answers for the rows
 * it has read and a scan for the rest (search/sqlite-search-index.ts). Otherwise (a Kysely
 * instance built by hand, an in-memory database, `searchIndex: false`): a scan of the search text,
 * newest written first, each term an `instr`, until the window is full; exact, and as slow as the
 * number of rows read.
 */
const sqliteCandidates: FindCandidates = async (db, terms) => {
  const index = searchIndexOf(db);
  if (index) return index.candidates(terms, rankingWindow);
  const contains = terms.map((term) => sql`and instr(s.search_text, ${term}) > 0`);
  const found = await sql<Candidate>`
    select s.id as seq, s.post_id, s.search_text from post_search s
    where 1 = 1 ${join(contains)}
    order by s.id desc limit ${rankingWindow}`.execute(db);
  return found.rows;
};

/** How many of the most recently written rows PostgreSQL reads first, before asking the index. */
export const recentRows = 5000;
/**
 * Matches among those rows from which reading further back is cheaper than the index: about one
 * row in sixty. Reading a row costs about a microsecond; the index costs several per match.
 */
const readFurtherFrom = 80;

/**
 * PostgreSQL: every term is a `LIKE '%term%'` (with `\`, `%` and `_` escaped) on the search text,
 * checked exactly. In steps, so the planner's guess at how common a word is cannot make a search
 * slow: first the `recentRows` most recently written rows, read backwards along the primary key;
 * when they hold a full window of matches, those are the newest matches of all. When they hold
 * many but too few, the query is common enough that reading further back (as far as the share
 * found promises a full window, and half as far again) beats the index. Otherwise, or when that
 * still falls short, every match, which the pg_trgm GIN index finds for terms of three or more
 * characters; ordered by `id + 0` so the planner cannot walk the primary key backwards through
 * the whole table instead.
 */
const postgresCandidates: FindCandidates = async (db, terms) => {
  const likes = join(terms.map((term) => sql`and s.search_text like ${`%${escapeLike(term)}%`} escape '\\'`));
  const newest = (rows: number) => sql<Candidate>`
    select s.id as seq, s.post_id, s.search_text
    from (select id, post_id, search_text from post_search order by id desc limit ${rows}) s
    where true ${likes}
    order by s.id desc limit ${rankingWindow}`;
  let found = await newest(recentRows).execute(db);
  const share = found.rows.length;
  if (share < rankingWindow && share >= readFurtherFrom) {
    found = await newest(Math.ceil(((recentRows * rankingWindow) / share) * 1.5)).execute(db);
  }
  if (found.rows.length < rankingWindow) {
    found = await sql<Candidate>`
      select s.id as seq, s.post_id, s.search_text from post_search s
      where true ${likes}
      order by s.id + 0 desc limit ${rankingWindow}`.execute(db);
  }
  return found.rows.map((row) => ({ ...row, seq: Number(row.seq) }));
};

/** The candidate query for a dialect. */
export const findCandidates: Record<DialectName, FindCandidates> = {
  sqlite: sqliteCandidates,
  postgres: postgresCandidates,
};

function join(parts: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return parts.length === 0 ? sql`` : sql.join(parts, sql` `);
}

/** `term` as a LIKE pattern's literal text (`\`, `%` and `_` escaped, for `escape '\'`). */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (char) => `\\${char}`);
}
