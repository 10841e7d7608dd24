// biome-ignore-all lint/suspicious/noExplicitAny: the triggers are created on a database of any shape
import { type CompiledQuery, type Kysely, sql } from "kysely";
import { type ChangeProbe, changeProbeOf, sameMark } from "./change-probe.js";
import type { Database } from "./schema.js";
import { type VersionConnection, versionConnectionOf } from "./version-connection.js";

/**
 * The site content version: row `site` of `content_versions`, a counter every write to what a
 * public answer or the settings are made of moves, in the writing transaction itself (triggers of
 * migration 011 and later). A reader that sees the same version as before knows nothing it may
 * show has changed, in this process or in any other sharing the database; there is no time to live.
 * @see docs/caching.md § The site version
 */
export const siteVersionName = "site";

/** Row `settings` of `content_versions`: moved by every write to `settings` (migration 016). */
export const settingsVersionName = "settings";

/**
 * The tables whose rows public answers and the settings are made of. Each has a trigger that moves
 * the site version. A later migration that adds such a table calls {@link addSiteVersionTriggers}
 * for it; one that adds a table no public answer reads lists it in {@link tablesWithoutSiteVersion}
 * (a test checks that every table is in one list or the other).
 */
export const tablesWithSiteVersion = [
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
] as const;

/** Tables no public answer (nor the settings) is made of: their writes leave the site version. */
export const tablesWithoutSiteVersion = [
  "api_tokens",
  "upload_sessions",
  "upload_parts",
  "maintenance_cursors",
  "nav_lock",
  "directory_lock",
  "content_versions",
  "owner_credentials",
  "sessions",
  "github_sync_connection",
  "github_sync_files",
  "github_sync_deliveries",
  "telegram_albums",
  "telegram_bind_codes",
  "telegram_bot",
  "telegram_chats",
  "telegram_updates",
  "quire_migrations",
  "quire_migrations_lock",
] as const;

/**
 * Adds the triggers that move the site version on every insert, update and delete of `tables`.
 *
 * - SQLite: a row trigger per event (SQLite has no statement triggers); the UPDATE of one row by
 *   primary key in the writer's transaction, which already holds the file's write lock.
 * - PostgreSQL: a constraint trigger per table, deferred to commit (so the counter row is locked
 *   only while a writer commits, never while it waits on another lock, as 006's `threads` triggers).
 *   Its WHEN condition, evaluated as each row is written, is true once per transaction (see
 *   {@link createSiteVersionFunction}), so a bulk write of thousands of rows queues one event and
 *   costs one UPDATE at commit, not thousands.
 */
export async function addSiteVersionTriggers(
  db: Kysely<any>,
  dialect: "sqlite" | "postgres",
  tables: readonly string[],
): Promise<void> {
  const bump = sql`update content_versions set version = version + 1 where name = 'site'`;
  if (dialect === "sqlite") {
    for (const table of tables) {
      for (const event of ["insert", "update", "delete"]) {
        const name = sql.raw(`${table}_${event}_site_version`);
        await sql`create trigger ${name} after ${sql.raw(event)} on ${sql.table(table)} begin ${bump}; end`.execute(
          db,
        );
      }
    }
    return;
  }
  for (const table of tables) {
    await sql`create constraint trigger ${sql.raw(`${table}_site_version`)}
      after insert or update or delete on ${sql.table(table)} deferrable initially deferred
      for each row when (mark_site_version()) execute function bump_site_version()`.execute(db);
    // TRUNCATE fires no row trigger; it already locks the whole table, so it moves the counter at once.
    await sql`create trigger ${sql.raw(`${table}_site_version_truncate`)}
      after truncate on ${sql.table(table)} for each statement execute function bump_site_version()`.execute(
      db,
    );
  }
}

/**
 * The PostgreSQL functions behind the triggers (see {@link addSiteVersionTriggers}):
 * `mark_site_version()`, the triggers' WHEN condition, is true for the first row a transaction
 * writes and false after (a transaction-local setting, undone with a rolled-back savepoint too), so
 * one deferred event is queued per transaction; `bump_site_version()` moves the counter at commit.
 */
export async function createSiteVersionFunction(db: Kysely<any>): Promise<void> {
  await sql`create or replace function mark_site_version() returns boolean language plpgsql as $$
    begin
      if current_setting('quire.site_version_marked', true) = 'on' then return false; end if;
      perform set_config('quire.site_version_marked', 'on', true);
      return true;
    end $$`.execute(db);
  await sql`create or replace function bump_site_version() returns trigger language plpgsql as $$
    begin
      update content_versions set version = version + 1 where name = 'site';
      return null;
    end $$`.execute(db);
}

/**
 * Runs a bulk write inside the transaction `trx` so that it moves each content counter once, not
 * once per row: the restore of a site archive (export/import-archive.ts).
 *
 * - SQLite fires its counter triggers per row (it has no statement triggers): about 12 µs each,
 *   four per restored post (posts moves `site` and `threads`, its address and search row `site`),
 *   a third of a restore's time. They are dropped inside `trx`, `write` runs, they are created
 *   again from the very SQL they were stored with, and each counter they move is moved once.
 *   SQLite's schema changes are transactional: if anything fails, the rollback puts the triggers
 *   back with the rows. No other writer runs meanwhile (the transaction holds the file's one write
 *   lock from its start, db/sqlite-dialect.ts); readers on other connections see the old schema
 *   and rows until the commit, and prepare their statements again after it.
 * - PostgreSQL's triggers fire once per transaction (the site version, see
 *   {@link addSiteVersionTriggers}) or once per statement (the Thread and settings versions), not
 *   per row: `write` runs as it is.
 */
export async function withOneCounterMove<T>(
  trx: Kysely<any>,
  dialect: "sqlite" | "postgres",
  write: () => Promise<T>,
): Promise<T> {
  if (dialect !== "sqlite") return write();
  const { rows: stored } = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master
    where type = 'trigger' and sql like '%content_versions%'`.execute(trx);
  // Only triggers whose whole body moves one counter are set aside; any other stays and fires as usual.
  const triggers = stored.flatMap((trigger) => {
    const counter = counterTrigger.exec(trigger.sql)?.[1];
    return counter === undefined ? [] : [{ ...trigger, counter }];
  });
  const counters = new Set(triggers.map((trigger) => trigger.counter));
  for (const trigger of triggers) await sql`drop trigger ${sql.id(trigger.name)}`.execute(trx);
  const result = await write();
  for (const trigger of triggers) await sql.raw(trigger.sql).execute(trx);
  if (counters.size > 0) {
    await sql`update content_versions set version = version + 1 where name in (${sql.join([...counters])})`.execute(
      trx,
    );
  }
  return result;
}

/** A SQLite trigger that only moves one content counter, as the migrations create them: group 1 names it. */
const counterTrigger =
  /^create trigger \w+ after (?:insert|update|delete) on "?\w+"?\s+begin update content_versions set version = version \+ 1 where name = '([a-z_]+)'; end$/i;

/** Resolves once the event loop's current turn has run its I/O callbacks. */
function endOfTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The site version and the settings version (row `settings`, moved by settings writes only; migration 016), read together. */
export interface Versions {
  /** The site version as text (a decimal integer); `none` on a database before migration 011. */
  site: string;
  /**
   * What the engine's copy of the settings is kept by: the settings version, or on a database
   * before migration 016 the site version (which settings writes move too), marked apart.
   */
  settings: string;
}

/**
 * Reads the site and settings versions for one engine: one read of two rows by primary key,
 * compiled once. Concurrent callers share a read, but only one that starts after they asked: a
 * read already under way may have begun before a write that committed just before the caller
 * asked, so a caller that arrives during a read waits for the next one (which all callers arriving
 * meanwhile share). Every caller thus gets versions read after its call began, and under load a
 * burst of requests costs one query instead of one each.
 *
 * On a database with a change probe (a SQLite file opened by `openDatabase`: its wal-index header,
 * db/wal-index-probe.ts), a call made when nothing has been committed since the last read began
 * gets that read's versions without a query: they are still the database's. On PostgreSQL opened
 * by `openDatabase`, the query runs on a connection kept for it (db/version-connection.ts).
 *
 * On a database without a probe (PostgreSQL, or a Kysely instance derived from the one
 * `openDatabase` gave), where a read may be a round trip to the server, a read starts at the end of
 * the event loop's turn (`setImmediate`) rather than at the first call: every request whose bytes
 * Node read in that turn shares it. Under 8 concurrent clients that took the reads from about 0.45
 * to 0.35 per request (bench/README.md § HTTP › Reads per turn, plain headers). With a probe, the
 * read is a local statement of microseconds and starts at once.
 */
export class SiteVersionReader {
  private readonly query: CompiledQuery;
  private running: Promise<Versions> | undefined;
  private queued: Promise<Versions> | undefined;
  private readonly probe: ChangeProbe | undefined;
  private readonly connection: VersionConnection | undefined;
  /** The last read's versions, and the probe's mark taken before it began. */
  private last: { mark: Uint8Array; versions: Promise<Versions> } | undefined;
  #queries = 0;

  constructor(private readonly db: Kysely<Database>) {
    this.probe = changeProbeOf(db);
    this.connection = versionConnectionOf(db);
    this.query = db
      .selectFrom("content_versions")
      .select(["name", "version"])
      .where("name", "in", [siteVersionName, settingsVersionName])
      .compile();
  }

  /** Queries made so far (the other calls were answered by the probe or shared a read). */
  get queries(): number {
    return this.#queries;
  }

  /** Both versions, read after this call began. */
  read(): Promise<Versions> {
    // One look at the database's state: it answers when nothing was committed since the last read
    // began, and it is the mark of a read that starts now (so a read after a commit costs one
    // `pread` of the wal-index, not two).
    const now = this.probe?.mark();
    if (now && this.last && sameMark(now, this.last.mark)) return this.last.versions;
    if (this.queued) return this.queued;
    if (this.probe) {
      // A local read of microseconds: the next one starts as soon as the running one is done.
      if (!this.running) return this.start(now);
      this.queued = this.running.then(this.startQueued, this.startQueued);
    } else {
      const turn = this.running ? this.running.then(endOfTurn, endOfTurn) : endOfTurn();
      this.queued = turn.then(this.startQueued);
    }
    return this.queued;
  }

  private readonly startQueued = (): Promise<Versions> => {
    this.queued = undefined;
    return this.start(this.probe?.mark());
  };

  /**
   * Starts a read. `mark` is the probe's, taken just before: a commit after it changes the header,
   * so the mark never vouches for versions older than the database's.
   */
  private start(mark: Uint8Array | undefined): Promise<Versions> {
    this.#queries += 1;
    const running = this.select()
      .then((result) => {
        let site = "none";
        let settings: string | undefined;
        for (const row of result.rows) {
          if (row.name === siteVersionName) site = String(row.version);
          else settings = String(row.version);
        }
        const versions = { site, settings: settings ?? `site ${site}` };
        if (mark) this.last = { mark, versions: Promise.resolve(versions) };
        return versions;
      })
      .finally(() => {
        if (this.running === running) this.running = undefined;
      });
    this.running = running;
    return running;
  }

  /**
   * The query: on PostgreSQL opened by `openDatabase`, on the version connection; if that fails
   * (a connection the server closed), through the pool, whose failure is the caller's.
   */
  private select(): Promise<{ rows: { name: string; version: number | string | bigint }[] }> {
    const pooled = () =>
      this.db.executeQuery<{ name: string; version: number | string | bigint }>(this.query);
    if (!this.connection) return pooled();
    return (
      this.connection.query(this.query.sql, this.query.parameters) as Promise<{
        rows: { name: string; version: number | string | bigint }[];
      }>
    ).catch(pooled);
  }
}
