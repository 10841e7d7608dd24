import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabaseLocation, testDatabaseKind } from "../testing/test-engine.js";
import { migrateToLatest } from "./migrate.js";
import type { Database } from "./schema.js";
import { SiteVersionReader } from "./site-version.js";
import { registerVersionConnection, VersionConnection, versionConnectionOf } from "./version-connection.js";

const siteVersion = async (db: Kysely<Database>) =>
  String(
    (
      await db
        .selectFrom("content_versions")
        .select("version")
        .where("name", "=", "site")
        .executeTakeFirstOrThrow()
    ).version,
  );

/** A client as openDatabase's, on the test database's schema. */
const newTestClient = (location: TestDatabaseLocation) =>
  new pg.Client({
    connectionString: location.url,
    ...(location.schema ? { options: `-c search_path=${location.schema}` } : {}),
  });

const serverProcess = (client: pg.Client | undefined) =>
  (client as unknown as { processID: number }).processID;

const isAlive = async (db: Kysely<Database>, pid: number) =>
  (await sql`select pid from pg_stat_activity where pid = ${pid}`.execute(db)).rows.length === 1;

const bump = (db: Kysely<Database>) =>
  sql`update content_versions set version = version + 1 where name = 'site'`.execute(db);

/** Checks that the reader's next read gives the site version the database holds now. */
const expectCurrent = async (reader: SiteVersionReader, db: Kysely<Database>) =>
  expect((await reader.read()).site).toBe(await siteVersion(db));

/** A migrated test database read through a version connection that records each client it opens. */
async function recordingSite(options: { idleMs?: number } = {}) {
  const { db, location, cleanup } = await openTestDatabase();
  await migrateToLatest(db);
  const clients: pg.Client[] = [];
  const dropped: Error[] = [];
  const connection = new VersionConnection({
    newClient: () => {
      const client = newTestClient(location);
      clients.push(client);
      return client;
    },
    named: true,
    onError: (error) => dropped.push(error),
    ...options,
  });
  registerVersionConnection(db, connection);
  const close = async () => {
    await connection.close();
    await cleanup();
  };
  return { db, clients, dropped, reader: new SiteVersionReader(db), close };
}

/**
 * Runs `check` with a migrated test database (`db`), a second instance openDatabase opened on it
 * (`other`) and that instance's version connection; destroys both after (a second destroy is a no-op).
 */
async function withReopened(
  check: (db: Kysely<Database>, other: Kysely<Database>, connection: VersionConnection) => Promise<void>,
): Promise<void> {
  const { db, reopen, cleanup } = await openTestDatabase();
  await migrateToLatest(db);
  const other = await reopen();
  try {
    const connection = versionConnectionOf(other);
    if (!connection) throw new Error("openDatabase gave PostgreSQL no version connection");
    await check(db, other, connection);
  } finally {
    await other.destroy();
    await cleanup();
  }
}

describe.skipIf(testDatabaseKind() !== "postgres")(
  "the site version on a connection of its own (PostgreSQL)",
  () => {
    it("is read on the version connection openDatabase opened, which closes with the database", async () => {
      await withReopened(async (db, other, connection) => {
        const reader = new SiteVersionReader(other);
        expect(connection.opened).toBe(0);
        await expectCurrent(reader, db);
        expect(connection.opened).toBe(1);
        // A commit on another connection is seen by the next read, on the same connection.
        await bump(db);
        await expectCurrent(reader, db);
        expect(connection.opened).toBe(1);

        const { rows } = (await connection.query(
          "select pid, application_name from pg_stat_activity where pid = pg_backend_pid()",
          [],
        )) as { rows: { pid: number; application_name: string }[] };
        expect(rows[0]?.application_name).toBe("quire-site-version");
        const pid = rows[0]?.pid as number;
        expect(await isAlive(db, pid)).toBe(true);
        await other.destroy();
        await expect(connection.query("select 1", [])).rejects.toThrow(/closed/);
        await expect.poll(() => isAlive(db, pid), { timeout: 5000 }).toBe(false);
      });
    });

    it("closes with the pool when a Kysely instance derived from the database is destroyed", async () => {
      await withReopened(async (db, other, connection) => {
        await expectCurrent(new SiteVersionReader(other), db);
        const { rows } = (await connection.query("select pg_backend_pid() as pid", [])) as {
          rows: { pid: number }[];
        };
        const pid = rows[0]?.pid as number;
        // A query through the pool, so that the driver the two instances share is in use.
        await siteVersion(other);
        // `withSchema` gives a new instance over the same driver; destroying it ends the pool.
        await other.withSchema("public").destroy();
        await expect(connection.query("select 1", [])).rejects.toThrow(/closed/);
        await expect.poll(() => isAlive(db, pid), { timeout: 5000 }).toBe(false);
      });
    });

    it("reads through the pool when the server has closed the connection, and opens a new one for the next read", async () => {
      const { db, clients, dropped, reader, close } = await recordingSite();
      try {
        await expectCurrent(reader, db);
        expect(clients).toHaveLength(1);

        // The server ends the idle connection (a restart, idle_session_timeout): the client hears
        // of it, and the next read, after a commit, opens a new one.
        await sql`select pg_terminate_backend(${serverProcess(clients[0])})`.execute(db);
        await expect.poll(() => dropped.length, { timeout: 5000 }).toBeGreaterThan(0);
        await bump(db);
        await expectCurrent(reader, db);
        expect(clients).toHaveLength(2);

        // The connection is gone without a word, so the query fails: that read is answered through
        // the pool, with the version now, and the next one opens a new connection.
        await clients[1]?.end();
        await bump(db);
        await expectCurrent(reader, db);
        await bump(db);
        await expectCurrent(reader, db);
        expect(clients).toHaveLength(3);
        expect(await isAlive(db, serverProcess(clients[2]))).toBe(true);
      } finally {
        await close();
      }
    });

    it("keeps a read exact while reads share the connection: each sees every commit made before it began", async () => {
      const { db, reopen, cleanup } = await openTestDatabase();
      await migrateToLatest(db);
      const other = await reopen();
      const reader = new SiteVersionReader(other);
      try {
        for (let round = 0; round < 20; round++) {
          await bump(db);
          const expected = await siteVersion(db);
          const versions = await Promise.all(Array.from({ length: 5 }, () => reader.read()));
          for (const answer of versions) expect(answer.site).toBe(expected);
        }
      } finally {
        await other.destroy();
        await cleanup();
      }
    });

    it("closes the connection once it idles, and opens it again for the next read", async () => {
      const { db, clients, reader, close } = await recordingSite({ idleMs: 200 });
      try {
        // Reads in a row keep it open.
        for (let n = 0; n < 10; n++) await expectCurrent(reader, db);
        expect(clients).toHaveLength(1);
        const first = serverProcess(clients[0]);
        await expect.poll(() => isAlive(db, first), { timeout: 5000 }).toBe(false);
        await bump(db);
        await expectCurrent(reader, db);
        expect(clients).toHaveLength(2);
        expect(await isAlive(db, serverProcess(clients[1]))).toBe(true);
      } finally {
        await close();
      }
    });

    it("lets a process that never destroys its database exit, once the pool and this connection idle", {
      timeout: 60_000,
    }, async () => {
      const { db, location, cleanup } = await openTestDatabase();
      await migrateToLatest(db);
      const folder = mkdtempSync(join(tmpdir(), "quire-version-exit-"));
      const source = (path: string) => JSON.stringify(new URL(path, import.meta.url).pathname);
      const script = join(folder, "script.mts");
      writeFileSync(
        script,
        `import { openDatabase } from ${source("./open.ts")};
import { createEngine } from ${source("../engine.ts")};
const db = await openDatabase(${JSON.stringify(location)});
const engine = createEngine({ db });
console.log((await engine.siteState()).version);
`,
      );
      try {
        const child = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", script], {
          encoding: "utf8",
          timeout: 40_000,
        });
        expect(child.stdout.trim(), child.stderr).toBe(await siteVersion(db));
        expect(child.status).toBe(0);
      } finally {
        rmSync(folder, { recursive: true, force: true });
        await cleanup();
      }
    });
  },
);
