import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, type KyselyPlugin, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import { exportSiteArchive } from "../export/export-archive.js";
import { importSiteArchive } from "../export/import-archive.js";
import { createTestEngine, testDatabaseKind } from "../testing/test-engine.js";
import { changeProbeOf, registerChangeProbe } from "./change-probe.js";
import { openDatabase } from "./open.js";
import type { Database } from "./schema.js";
import { SiteVersionReader, tablesWithoutSiteVersion, tablesWithSiteVersion } from "./site-version.js";
import { WalIndexProbe } from "./wal-index-probe.js";

async function siteVersion(db: Kysely<Database>): Promise<bigint> {
  const row = await db
    .selectFrom("content_versions")
    .select("version")
    .where("name", "=", "site")
    .executeTakeFirstOrThrow();
  return BigInt(row.version);
}

async function tableNames(db: Kysely<Database>): Promise<string[]> {
  const rows =
    testDatabaseKind() === "postgres"
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table'
          and name not like 'sqlite_%' and name not like 'post_search_fts%'`.execute(db);
  return rows.rows.map((row) => row.name).sort();
}

async function triggeredTables(db: Kysely<Database>): Promise<string[]> {
  const rows =
    testDatabaseKind() === "postgres"
      ? await sql<{ name: string }>`select distinct c.relname as name from pg_trigger t
          join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
          where p.proname = 'bump_site_version' and c.relnamespace = current_schema()::regnamespace`.execute(
          db,
        )
      : await sql<{ name: string }>`select distinct tbl_name as name from sqlite_master
          where type = 'trigger' and sql like '%name = ''site''%'`.execute(db);
  return rows.rows.map((row) => row.name).sort();
}

/** Every counter of `content_versions` but the search index's identity. */
async function counters(db: Kysely<Database>): Promise<Record<string, bigint>> {
  const rows = await db.selectFrom("content_versions").select(["name", "version"]).execute();
  return Object.fromEntries(
    rows.filter((row) => row.name !== "search_identity").map((row) => [row.name, BigInt(row.version)]),
  );
}

/** The triggers that move the counters, with their definitions. */
async function versionTriggers(db: Kysely<Database>): Promise<string[]> {
  const rows =
    testDatabaseKind() === "postgres"
      ? await sql<{ definition: string }>`select pg_get_triggerdef(t.oid) as definition from pg_trigger t
          join pg_class c on c.oid = t.tgrelid
          where not t.tgisinternal and c.relnamespace = current_schema()::regnamespace`.execute(db)
      : await sql<{ definition: string }>`select sql as definition from sqlite_master
          where type = 'trigger' and sql like '%content_versions%'`.execute(db);
  return rows.rows.map((row) => row.definition).sort();
}

describe("the site version", () => {
  it("every table moves it or is listed as one no public answer reads", async () => {
    const { engine, cleanup } = await createTestEngine();
    try {
      const tables = await tableNames(engine.context.db);
      const listed = new Set<string>([...tablesWithSiteVersion, ...tablesWithoutSiteVersion]);
      expect(tables.filter((table) => !listed.has(table))).toEqual([]);
      expect(await triggeredTables(engine.context.db)).toEqual([...tablesWithSiteVersion].sort());
    } finally {
      await cleanup();
    }
  });

  it("moves with each kind of public content write, in the writing transaction, and not otherwise", async () => {
    const { engine, cleanup } = await createTestEngine();
    const db = engine.context.db;
    try {
      let last = await siteVersion(db);
      const moved = async () => {
        const now = await siteVersion(db);
        const result = now > last;
        last = now;
        return result;
      };
      const post = await engine.posts.create({ format: "note", title: "One", bodyMarkdown: "Hello" });
      expect(await moved()).toBe(true);
      await engine.posts.update({ id: post.id, title: "Two" });
      expect(await moved()).toBe(true);
      const collection = await engine.collections.create({ slug: "things", title: "Things" });
      expect(await moved()).toBe(true);
      await engine.collections.addThread({ id: collection.id, threadId: post.id });
      expect(await moved()).toBe(true);
      await engine.navItems.create({ type: "link", label: "Home", url: "https://example.com/" });
      expect(await moved()).toBe(true);
      await engine.settings.update({ SITE_NAME: "Renamed" });
      expect(await moved()).toBe(true);
      await engine.posts.delete({ id: post.id });
      expect(await moved()).toBe(true);
      // Tokens are no public content.
      await engine.tokens.create({ name: "ci" });
      expect(await moved()).toBe(false);
      // A write that is rolled back leaves the version where it was.
      await db
        .transaction()
        .execute(async (trx) => {
          await trx.updateTable("settings").set({ updated_at: 1 }).execute();
          await trx
            .insertInto("settings")
            .values({ key: "SITE_NAME", value: "x", updated_at: 0 })
            .onConflict((oc) => oc.column("key").doUpdateSet({ value: "x" }))
            .execute();
          throw new Error("undo");
        })
        .catch(() => {});
      expect(await moved()).toBe(false);
    } finally {
      await cleanup();
    }
  });

  it("a transaction writing many rows moves it (once on PostgreSQL)", async () => {
    const { engine, cleanup } = await createTestEngine();
    const db = engine.context.db;
    try {
      const before = await siteVersion(db);
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < 20; i++) {
          await trx
            .insertInto("settings")
            .values({ key: `X_${i}`, value: "1", updated_at: 0 })
            .execute();
        }
      });
      const after = await siteVersion(db);
      if (testDatabaseKind() === "postgres") expect(after).toBe(before + 1n);
      else expect(after).toBe(before + 20n);
      // A second transaction moves it again: the once-per-transaction mark does not outlive it.
      await db.deleteFrom("settings").where("key", "like", "X_%").execute();
      expect(await siteVersion(db)).toBeGreaterThan(after);
    } finally {
      await cleanup();
    }
  });

  it.skipIf(testDatabaseKind() !== "postgres")("TRUNCATE moves it too (PostgreSQL)", async () => {
    const { engine, cleanup } = await createTestEngine();
    const db = engine.context.db;
    try {
      await engine.navItems.create({ type: "link", label: "Home", url: "https://example.com/" });
      const before = await siteVersion(db);
      await sql`truncate nav_items`.execute(db);
      expect(await siteVersion(db)).toBeGreaterThan(before);
    } finally {
      await cleanup();
    }
  });

  it("another engine on the database reads the moved version on its next read", async () => {
    const { engine, reopen, cleanup } = await createTestEngine();
    const db = await reopen();
    const other = createEngine({ db });
    try {
      const first = (await other.siteState()).version;
      expect((await other.siteState()).version).toBe(first);
      await engine.posts.create({ format: "note", bodyMarkdown: "Hello" });
      expect((await other.siteState()).version).not.toBe(first);
    } finally {
      await db.destroy();
      await cleanup();
    }
  });

  it("a restore moves each counter once and keeps its triggers; another engine sees the restored site at once", async () => {
    const source = await createTestEngine();
    const { engine, reopen, cleanup } = await createTestEngine();
    const db = await reopen();
    const other = createEngine({ db });
    try {
      await source.engine.settings.update({ SITE_LANGUAGE: "fr" });
      for (const title of ["One", "Two", "Three"])
        await source.engine.posts.create({ format: "note", title });
      const chunks: Uint8Array[] = [];
      for await (const chunk of exportSiteArchive(source.engine)) chunks.push(chunk);
      const archive = Buffer.concat(chunks);

      // The other engine has read, and keeps, the empty site's settings and Threads.
      expect((await other.siteSettings()).siteLanguage).toBe("en");
      expect((await other.threads.list({})).threads).toEqual([]);
      const triggers = await versionTriggers(db);
      expect(triggers.length).toBeGreaterThan(20);
      const before = await counters(db);

      await importSiteArchive(engine, archive);
      const after = await counters(db);
      for (const name of ["site", "threads", "settings"]) {
        expect(after[name], name).toBeGreaterThan(before[name] ?? Number.POSITIVE_INFINITY);
      }
      // SQLite's row triggers were set aside for the restore: one move each, not one per row.
      if (testDatabaseKind() === "sqlite") {
        expect(after).toEqual({
          site: (before.site ?? 0n) + 1n,
          threads: (before.threads ?? 0n) + 1n,
          settings: (before.settings ?? 0n) + 1n,
        });
      }
      expect(await versionTriggers(db)).toEqual(triggers);
      expect((await other.siteSettings()).siteLanguage).toBe("fr");
      expect((await other.threads.list({})).threads.map((thread) => thread.root.title).sort()).toEqual([
        "One",
        "Three",
        "Two",
      ]);
      // The triggers are back: the next write moves the version again, row by row as before.
      await other.posts.create({ format: "note", title: "After" });
      expect((await counters(db)).site).toBeGreaterThan(after.site ?? Number.POSITIVE_INFINITY);

      // A refused restore (a cut archive, forced over the site) leaves counters and triggers as they were.
      const moved = await counters(db);
      const cut = archive.subarray(0, Math.floor(archive.length / 2));
      await expect(importSiteArchive(engine, cut, { force: true })).rejects.toThrow(/truncated|corrupt/);
      expect(await counters(db)).toEqual(moved);
      expect(await versionTriggers(db)).toEqual(triggers);
    } finally {
      await db.destroy();
      await cleanup();
      await source.cleanup();
    }
  });

  it("concurrent readers share reads: a burst in one turn costs one query, each begun after its callers asked", async () => {
    const { reopen, cleanup } = await createTestEngine();
    const base = await reopen();
    let reads = 0;
    const counter: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (args.result.rows.some((row) => "version" in (row as object))) reads += 1;
        return args.result;
      },
    };
    // A derived instance has no change probe: every read is a query, as on PostgreSQL.
    const reader = new SiteVersionReader(base.withPlugin(counter));
    try {
      const versions = await Promise.all(Array.from({ length: 20 }, () => reader.read()));
      expect(new Set(versions.map((version) => JSON.stringify(version))).size).toBe(1);
      // The read starts at the end of the turn, once all twenty have asked.
      expect(reads).toBe(1);
      // Sequential reads each make their own query.
      const before = reads;
      await reader.read();
      await reader.read();
      expect(reads).toBe(before + 2);
    } finally {
      await base.destroy();
      await cleanup();
    }
  });
});

describe("the site version without a query (the change probe)", () => {
  it("answers from the last read while nothing is committed, and sees at once every commit of another connection, engine or process", async () => {
    const { engine, reopen, cleanup } = await createTestEngine();
    const own = await reopen();
    const otherDb = await reopen();
    const other = createEngine({ db: otherDb });
    const reader = new SiteVersionReader(own);
    const current = async () => {
      const rows = await otherDb.selectFrom("content_versions").select(["name", "version"]).execute();
      const version = (name: string) => String(rows.find((row) => row.name === name)?.version);
      return { site: version("site"), settings: version("settings") };
    };
    try {
      const sqlite = testDatabaseKind() === "sqlite";
      expect(changeProbeOf(own) !== undefined).toBe(sqlite);
      expect(await reader.read()).toEqual(await current());
      const first = reader.queries;
      // Nothing committed: on a SQLite file no query is made; elsewhere each read makes its own.
      expect(await reader.read()).toEqual(await current());
      expect(await reader.read()).toEqual(await current());
      expect(reader.queries).toBe(sqlite ? first : first + 2);

      // Every kind of commit, each read right after it: a post by another engine, the settings by
      // the engine on the first handle, a reply, a delete, a raw statement on a connection of its own.
      const writes: (() => Promise<unknown>)[] = [
        () => other.posts.create({ format: "note", title: "By the other engine" }),
        async () => engine.settings.update({ SITE_NAME: `Renamed ${(await reader.read()).settings}` }),
        async () => {
          const root = await other.posts.create({ format: "note", title: "Root" });
          await engine.posts.create({ format: "note", replyToId: root.id, bodyMarkdown: "A reply" });
        },
        async () => {
          const doomed = await engine.posts.create({ format: "note", title: "Doomed" });
          await other.posts.delete({ id: doomed.id });
        },
        async () => {
          const raw = await reopen();
          await sql`update content_versions set version = version + 1 where name = 'site'`.execute(raw);
          await raw.destroy();
        },
      ];
      for (let round = 0; round < 3; round++) {
        for (const write of writes) {
          const before = await reader.read();
          await write();
          const after = await reader.read();
          expect(after).toEqual(await current());
          expect(after).not.toEqual(before);
        }
      }
    } finally {
      await own.destroy();
      await other.close();
      await cleanup();
    }
  });

  it.skipIf(testDatabaseKind() !== "sqlite")(
    "follows a database opened through a symbolic link to its real file's wal-index, not a stale one beside the link",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "quire-probe-"));
      mkdirSync(join(dir, "real"));
      mkdirSync(join(dir, "link"));
      const real = join(dir, "real", "site.db");
      const link = join(dir, "link", "site.db");
      const first = await openDatabase({ url: real });
      const engine = createEngine({ db: first });
      await engine.migrate();
      symlinkSync(real, link);
      const viaLink = await openDatabase({ url: link });
      try {
        // A decoy beside the link: the real header as it is now, which no commit will ever change.
        copyFileSync(`${real}-shm`, `${link}-shm`);
        const reader = new SiteVersionReader(viaLink);
        const before = await reader.read();
        await engine.posts.create({ format: "note", title: "Seen through the link" });
        const after = await reader.read();
        expect(Number(after.site)).toBeGreaterThan(Number(before.site));
      } finally {
        await viaLink.destroy();
        await engine.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(testDatabaseKind() !== "sqlite")(
    "looks at the wal-index once per read: the look that finds a commit is the next read's mark",
    async () => {
      const { engine, reopen, cleanup } = await createTestEngine();
      const own = await reopen();
      const probe = changeProbeOf(own);
      if (!probe) throw new Error("a SQLite file has a change probe");
      let looks = 0;
      registerChangeProbe(own, {
        mark: () => {
          looks += 1;
          return probe.mark();
        },
      });
      const reader = new SiteVersionReader(own);
      try {
        await reader.read();
        for (let i = 0; i < 3; i++) {
          await engine.posts.create({ format: "note", title: `Commit ${i}` });
          const [queries, before] = [reader.queries, looks];
          const after = await reader.read();
          expect(after.site).toBe(String(await siteVersion(own)));
          expect([reader.queries - queries, looks - before]).toEqual([1, 1]);
          // Nothing committed since: one more look, no query.
          expect(await reader.read()).toEqual(after);
          expect([reader.queries - queries, looks - before]).toEqual([1, 2]);
        }
      } finally {
        await own.destroy();
        await cleanup();
      }
    },
  );

  it("a probe that cannot read the wal-index vouches for nothing", () => {
    const probe = new WalIndexProbe("/nonexistent/quire.db");
    expect(probe.mark()).toBeUndefined();
    probe.close();
  });
});
