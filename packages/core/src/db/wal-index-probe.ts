import { closeSync, openSync, readSync } from "node:fs";
import type { ChangeProbe } from "./change-probe.js";

/**
 * The two copies of the wal-index header at the start of a WAL database's `-shm` file, 48 bytes
 * each (https://www.sqlite.org/walformat.html § 2.1, the unix and windows VFSes).
 */
const headerBytes = 48;
/** Offset of `isInit` in a header copy: 1 once the header holds a valid WAL state. */
const isInitOffset = 12;

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
 */
export class WalIndexProbe implements ChangeProbe {
  readonly #path: string;
  #fd: number | undefined;
  #closed = false;
  readonly #now = new Uint8Array(2 * headerBytes);

  constructor(databaseFile: string) {
    this.#path = `${databaseFile}-shm`;
  }

  mark(): Uint8Array | undefined {
    return this.#read() ? this.#now.slice(0, headerBytes) : undefined;
  }

  /** Closes the file; later marks are undefined. */
  close(): void {
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  /** Reads both header copies into `#now`: true when they are whole, equal and initialised. */
  #read(): boolean {
    if (this.#closed) return false;
    try {
      this.#fd ??= openSync(this.#path, "r");
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
