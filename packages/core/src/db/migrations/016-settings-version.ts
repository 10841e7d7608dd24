import { type Kysely, sql } from "kysely";
import { detectDialect } from "../dialect.js";

/**
 * The settings version: row `settings` of `content_versions`, moved by every write to `settings`
 * in its transaction, as the site version is (db/site-version.ts). The engine's copy of the
 * settings was kept by the site version, which every post write moves too, so each post write
 * made the next call read and resolve the settings again; keyed by this row, the copy stays until
 * the settings themselves change. @see docs/settings.md § Caching
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`insert into content_versions (name, version) values ('settings', 0)`.execute(db);
  const bump = sql`update content_versions set version = version + 1 where name = 'settings'`;
  if (detectDialect(db).name === "sqlite") {
    for (const event of ["insert", "update", "delete"]) {
      await sql`create trigger ${sql.raw(`settings_${event}_settings_version`)} after ${sql.raw(event)} on settings
        begin ${bump}; end`.execute(db);
    }
    return;
  }
  // Once per statement: settings writes are few and small, and the row stays locked only until
  // their commit (they already lock the settings' own lock row first; docs/settings.md).
  await sql`create or replace function bump_settings_version() returns trigger language plpgsql as $$
    begin
      update content_versions set version = version + 1 where name = 'settings';
      return null;
    end $$`.execute(db);
  await sql`create trigger settings_settings_version after insert or update or delete or truncate on settings
    for each statement execute function bump_settings_version()`.execute(db);
}
