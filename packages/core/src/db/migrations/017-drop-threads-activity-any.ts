import { type Kysely, sql } from "kysely";

/**
 * Drops `threads_activity_any` (002): roots by activity, pinned ones left out, for lists of several
 * visibilities. `threads_activity_all` (005: every root by activity) serves those lists as well,
 * skipping the few pinned roots as it reads them, and both planners already chose it for them
 * (SQLite without statistics; PostgreSQL on the analysed 100k bench site). Each root's create and
 * each reply that moves its root's activity wrote to both; now to one: a page fewer in a create's
 * commit (bench/README.md § Write path › One index fewer).
 * @see docs/threads.md § Indexes and cost
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists threads_activity_any`.execute(db);
}
