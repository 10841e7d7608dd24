import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine } from "../engine.js";
import { changeProbeOf } from "./change-probe.js";
import { openDatabase } from "./open.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** POSIX locks this process holds on `file`, as Linux lists them in /proc/locks. */
function locksOn(file: string): number {
  const { ino } = statSync(file);
  // A line: "1: POSIX  ADVISORY  READ 1234 fd:00:5678 128 128", the file as device:inode.
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .filter((line) => {
      const fields = line.trim().split(/\s+/);
      return fields[4] === String(process.pid) && fields[5]?.endsWith(`:${ino}`);
    }).length;
}

/**
 * Descriptors this process has open on `file`, as Linux lists them in /proc/self/fd (with
 * " (deleted)" once unlinked: SQLite deletes `-shm` when the last connection to the file closes).
 */
function descriptorsOn(file: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).replace(/ \(deleted\)$/, "") === file;
    } catch {
      return false; // closed since the listing
    }
  }).length;
}

// Whatever QUIRE_TEST_DATABASE says: this is how a SQLite file is read. /proc/locks is Linux's.
describe.runIf(existsSync("/proc/locks"))("the wal-index probe and SQLite's locks (SQLite file)", () => {
  it("closing one database leaves the locks of another database on the same file in place", async () => {
    const folder = mkdtempSync(join(tmpdir(), "quire-probe-locks-"));
    folders.push(folder);
    const file = join(folder, "site.db");
    const first = await openDatabase({ url: file });
    await createEngine({ db: first }).migrate();
    const second = await openDatabase({ url: file });
    // Each connection maps the wal-index and holds its shared lock on `-shm` from its first read.
    await sql`select count(*) from posts`.execute(first);
    await sql`select count(*) from posts`.execute(second);
    expect(changeProbeOf(first)?.mark()).toBeDefined();
    expect(changeProbeOf(second)?.mark()).toBeDefined();
    const shm = `${file}-shm`;
    expect(locksOn(shm)).toBeGreaterThan(0);

    // Closing the first database's probe descriptor would release every lock of the process on
    // `-shm`, the second database's among them.
    await first.destroy();
    expect(locksOn(shm)).toBeGreaterThan(0);

    // The second still reads, and its probe still sees a commit.
    const before = changeProbeOf(second)?.mark();
    await createEngine({ db: second }).posts.create({ format: "note", title: "Still here" });
    const after = changeProbeOf(second)?.mark();
    expect(before).toBeDefined();
    expect(after).toBeDefined();
    expect(Buffer.from(after as Uint8Array).equals(Buffer.from(before as Uint8Array))).toBe(false);
    await second.destroy();
  });

  it("destroying an instance made by withSchema closes the probe's descriptor too", async () => {
    const folder = mkdtempSync(join(tmpdir(), "quire-probe-derived-"));
    folders.push(folder);
    const file = join(folder, "site.db");
    const db = await openDatabase({ url: file });
    await createEngine({ db }).migrate();
    await sql`select count(*) from posts`.execute(db);
    expect(changeProbeOf(db)?.mark()).toBeDefined();
    const shm = join(realpathSync(folder), "site.db-shm");
    // SQLite's own descriptor (its connections in the process share one) and the probe's.
    expect(descriptorsOn(shm)).toBeGreaterThanOrEqual(2);

    // Kysely's derived instances share the driver: destroying one closes the connection and the
    // threads beside the file, and the probe must not outlive them.
    await db.withSchema("main").destroy();
    expect(descriptorsOn(shm)).toBe(0);
  });
});
