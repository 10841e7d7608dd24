import { type Kysely, sql } from "kysely";
import { detectDialect } from "../dialect.js";

/**
 * What navigation and smart collection figures need besides their tables (a step of its own, so a
 * database that applied `006-smart-collections-nav` gets it too):
 * - `nav_lock` is one row every navigation write locks first, so concurrent writers never compute
 *   the same position (as the collection directory does).
 * - `content_versions` row `threads` counts the writes to what smart collection figures are made
 *   of (`posts`, `collection_threads`), bumped by triggers in the writing transaction, so the
 *   figures can be cached by version and are recomputed only after a change. On PostgreSQL the
 *   triggers are deferred to commit, so the counter row is locked only while a writer commits
 *   (never while it waits on another lock).
 * @see docs/navigation.md § Order, docs/smart-collections.md § Counting
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("nav_lock")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .execute();
  await sql`insert into nav_lock (id) values ('nav') on conflict do nothing`.execute(db);
  await contentVersions(db);
}

/** The `threads` content version and the triggers that bump it. */
async function contentVersions(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("content_versions")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("version", "bigint", (c) => c.notNull())
    .execute();
  await sql`insert into content_versions (name, version) values ('threads', 0)`.execute(db);
  const bump = sql`update content_versions set version = version + 1 where name = 'threads'`;
  if (detectDialect(db).name === "sqlite") {
    for (const table of ["posts", "collection_threads"]) {
      for (const event of ["insert", "update", "delete"]) {
        const name = sql.raw(`${table}_${event}_threads_version`);
        await sql`create trigger ${name} after ${sql.raw(event)} on ${sql.table(table)} begin ${bump}; end`.execute(
          db,
        );
      }
    }
    return;
  }
  await sql`create function bump_threads_version() returns trigger language plpgsql as $$
    begin ${bump}; return null; end $$`.execute(db);
  for (const table of ["posts", "collection_threads"]) {
    await sql`create constraint trigger ${sql.raw(`${table}_threads_version`)}
      after insert or update or delete on ${sql.table(table)} deferrable initially deferred
      for each row execute function bump_threads_version()`.execute(db);
  }
}
