import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { ChangeProbe } from "./change-probe.js";

/**
 * The two copies of the wal-index header at the start of a WAL database's `-shm` file, 48 bytes
 * each (https://www.sqlite.org/walformat.html § 2.1, the unix and windows VFSes).
 */
const headerBytes = 48;
/** Offset of `isInit` in a header copy: 1 once the header holds a valid WAL state. */
const isInitOffset = 12;

/** The probes of this process on one `-shm` file (by device and inode), and their descriptors. */
interface SharedShm {
  key: string;
  users: number;
  fds: number[];
}

/**
 * Every `-shm` file a probe of this process has open. A descriptor stays open until the last probe
 * on its file closes: the same deferral SQLite's unix VFS makes for its own descriptors.
 */
const openShm = new Map<string, SharedShm>();

/**
 * Tells whether a SQLite file in WAL mode has had a commit since a mark, from its wal-index header:
 * one `pread` of 96 bytes of `<file>-shm`, against a query's read transaction (its shared locks on
 * the file and the read marks) — about a fifth of a cached public answer's time on the reference
 * server (docs/caching.md § Reading it).
 *
 * Why the header can be trusted (walformat.html § 2.1, wal.c): every commit rewrites it, with
 * `iChange` moved by one and `mxFrame` (the last committed frame) moved on; a commit is visible to
 * readers only through it, so one that has returned to its caller has already changed it. A writer
 * writes the second copy, then the first; a reader that finds both copies equal to its mark knows
 * no commit ran in between (a header caught mid-write differs from the mark in at least one copy).
 * Checkpoints write the checkpoint information after the header, not the header. The `-shm` file
 * lives as long as any connection to the database does, and this probe's own engine holds one. It
 * lies beside the database's real file (SQLite follows symbolic links), so `databaseFile` must be
 * that real path: a `-shm` beside a link would be no one's, and never change.
 * The format is SQLite's, fixed by the SQLite that better-sqlite3 bundles; `db/site-version.test.ts`
 * checks, through two connections, that every commit is seen.
 *
 * Anything unexpected (no file yet, a short read, copies that differ, `isInit` unset) makes
 * {@link mark} return undefined: the reader then asks the database.
 *
 * Closing a descriptor of a file releases every POSIX lock the process holds on that file, through
 * any descriptor (fcntl(2); sqlite.org/howtocorrupt.html § 2.2), and SQLite's locks on `-shm` are
 * POSIX locks: the one that tells a newcomer the wal-index is in use, and the readers' marks that
 * keep a checkpoint from overwriting pages they still read. So a probe's descriptor is closed only
 * when no probe of the process still refers to that `-shm` (see {@link openShm}), and `openDatabase`
 * closes its probe after the database's connections: closing one database never takes the locks of
 * another on the same file.
 */
export class WalIndexProbe implements ChangeProbe {
  readonly #path: string;
  #fd: number | undefined;
  /** The `openShm` entry of the file `#fd` is open on. */
  #shared: SharedShm | undefined;
  #closed = false;
  readonly #now = new Uint8Array(2 * headerBytes);

  constructor(databaseFile: string) {
    this.#path = `${databaseFile}-shm`;
  }

  mark(): Uint8Array | undefined {
    return this.#read() ? this.#now.slice(0, headerBytes) : undefined;
  }

  /**
   * Lets go of the file; later marks are undefined. Its descriptor is closed with the last probe of
   * the process on that file (see the class comment).
   */
  close(): void {
    this.#closed = true;
    const shared = this.#shared;
    this.#fd = undefined;
    this.#shared = undefined;
    if (!shared || --shared.users > 0) return;
    openShm.delete(shared.key);
    for (const fd of shared.fds) closeSync(fd);
  }

  #open(): number {
    const fd = openSync(this.#path, "r");
    const { dev, ino } = fstatSync(fd);
    const key = `${dev}:${ino}`;
    let shared = openShm.get(key);
    if (!shared) {
      shared = { key, users: 0, fds: [] };
      openShm.set(key, shared);
    }
    shared.users++;
    shared.fds.push(fd);
    this.#shared = shared;
    return fd;
  }

  /** Reads both header copies into `#now`: true when they are whole, equal and initialised. */
  #read(): boolean {
    if (this.#closed) return false;
    try {
      this.#fd ??= this.#open();
      if (readSync(this.#fd, this.#now, 0, this.#now.length, 0) !== this.#now.length) return false;
    } catch {
      return false;
    }
    const now = this.#now;
    if (now[isInitOffset] !== 1) return false;
    for (let i = 0; i < headerBytes; i++) if (now[i] !== now[headerBytes + i]) return false;
    return true;
  }
}
