import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { stopWorker } from "../shared/stop-worker.js";

/** What {@link WalCheckpointer} needs of the engine's own better-sqlite3 connection. */
interface MainConnection {
  pragma(source: string, options?: { simple: boolean }): unknown;
}

/** Options for {@link WalCheckpointer}. */
export interface WalCheckpointerOptions {
  /** The database file (absolute). */
  file: string;
  /** Resolves the better-sqlite3 module's path, loaded again in the checkpointing thread. */
  driverPath: () => string;
  /** The engine's connection: its own checkpoints are turned down once the thread runs. */
  main: MainConnection;
  /** The WAL size after which checkpoints move to the thread (default 4 MiB, SQLite's own point). */
  afterBytes?: number;
  /** Least time between two checkpoints asked of the thread (default 100 ms). */
  intervalMs?: number;
}

/** Slots of the memory the thread shares with the engine: checkpoints asked and not done, checkpoints done. */
const PENDING = 0;
const CHECKPOINTS = 1;

/**
 * The checkpointing thread's code: its own connection to the file, a PASSIVE checkpoint per
 * message (it copies what it can and waits for no reader or writer). It answers in shared memory,
 * not by a message: the engine reads the answer in {@link WalCheckpointer.poke}, which must see it
 * even when the event loop has not turned since the ask. A script that awaits one write after
 * another never lets it turn (better-sqlite3 is synchronous, so every await resolves as a
 * microtask), and an answer sent as a message waited there until the script ended: measured on
 * `pnpm bench:write`, the thread checkpointed once in 6,000 creates, and the engine's connection
 * did the rest itself at its 64 MiB backstop, syncing the WAL and the file on the event loop.
 */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driverPath);
const state = new Int32Array(workerData.state);
const db = new Database(workerData.file, { fileMustExist: true });
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
    Atomics.add(state, ${CHECKPOINTS}, 1);
  } catch {
    // Tried again at the next ask; a checkpoint that fails loses nothing.
  }
  Atomics.sub(state, ${PENDING}, 1);
});
`;

/**
 * Moves a SQLite file's WAL checkpoints off the event loop.
 *
 * SQLite checkpoints in the connection whose commit takes the WAL past `wal_autocheckpoint` pages
 * (1,000 by default): that commit copies the WAL's pages into the database file and syncs both
 * (with `synchronous = NORMAL`, the only syncs WAL makes), and better-sqlite3 runs it on the
 * thread that called it, so every ~150th post create waited for a checkpoint. Measured on this
 * project's 2-vCPU VM: statements of a post create, replayed on better-sqlite3 alone, 1.55–1.78 ms
 * of wall time per create with the automatic checkpoint against 0.88–0.91 ms without (the same
 * CPU time): the rest is the disk's sync. SQLite's documentation suggests running checkpoints in
 * a separate thread, and better-sqlite3's performance notes checkpoint from a timer; here a worker
 * thread with its own connection runs PASSIVE checkpoints (they wait for no reader and no writer,
 * so a commit never waits for one either) while the engine's connection keeps writing.
 *
 * The thread starts only once the WAL has grown past `afterBytes` (a small site, and every test,
 * never starts one). From then on the engine's connection keeps a distant automatic checkpoint
 * (16,384 pages, 64 MiB) as a backstop, and {@link poke} (after each released connection) asks the
 * thread for a checkpoint at most every `intervalMs`. A thread that fails hands checkpoints back to
 * the engine's connection at SQLite's default. Several processes on one file each run their own;
 * a checkpoint that meets another's simply copies less.
 *
 * A long transaction (a restore, a bulk create) can put more into the WAL than either threshold at
 * one commit, and SQLite would then checkpoint all of it in that commit, on the engine's thread: a
 * 20,000-post restore spent 1.3 of its 2.9 s there. So before such a commit
 * ({@link beforeLongCommit}) the engine's connection stops checkpointing for that one commit and the
 * thread is asked right after it.
 */
export class WalCheckpointer {
  readonly #options: Required<WalCheckpointerOptions>;
  readonly #walPath: string;
  #worker: Worker | undefined;
  #failed = false;
  #closed = false;
  /** Shared with the thread: checkpoints asked and not yet done, and checkpoints done. */
  readonly #state = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  #lastAsked = 0;

  constructor(options: WalCheckpointerOptions) {
    this.#options = { afterBytes: 4 * 1024 * 1024, intervalMs: 100, ...options };
    this.#walPath = `${options.file}-wal`;
  }

  /** Checkpoints the thread has finished (for tests and diagnostics). */
  get checkpoints(): number {
    return Atomics.load(this.#state, CHECKPOINTS);
  }

  /** True while the checkpointing thread runs. */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Called after the engine's connection is released: a write may have grown the WAL. */
  poke(): void {
    if (this.#closed || this.#failed || Atomics.load(this.#state, PENDING) > 0) return;
    const now = Date.now();
    if (now - this.#lastAsked < this.#options.intervalMs) return;
    this.#lastAsked = now;
    if (!this.#worker) {
      if (this.#walSize() < this.#options.afterBytes) return;
      this.#start();
    }
    this.#ask();
  }

  /** Asks the thread for a checkpoint, run after the one under way if there is one. */
  #ask(): void {
    if (!this.#worker) return;
    Atomics.add(this.#state, PENDING, 1);
    this.#lastAsked = Date.now();
    this.#worker.postMessage("checkpoint");
  }

  /** The WAL file's size; 0 when it cannot be read, which also hands checkpoints back to SQLite for good. */
  #walSize(): number {
    try {
      return statSync(this.#walPath, { throwIfNoEntry: false })?.size ?? 0;
    } catch {
      // Unreadable: leave checkpoints to SQLite. A poke must never fail the query it follows.
      this.#failed = true;
      return 0;
    }
  }

  /**
   * Called before the commit of a transaction that ran long ({@link FileSqliteDialect}); SQLite
   * spills a large transaction's pages to the WAL as it goes, so the WAL file already holds most
   * of it. If the WAL has passed `afterBytes`, the thread starts (if it has not) and the engine's
   * connection leaves this commit unchecked: the returned function, called once the commit is
   * over (committed or not), puts its automatic checkpoint back as it was and asks the thread for
   * a checkpoint at once. Nothing to do (the WAL is small, the thread has failed): `undefined`.
   */
  beforeLongCommit(): (() => void) | undefined {
    if (this.#closed || this.#failed) return undefined;
    if (!this.#worker) {
      if (this.#walSize() < this.#options.afterBytes) return undefined;
      this.#start();
      if (!this.#worker) return undefined;
    }
    const { main } = this.#options;
    let previous: number;
    try {
      previous = Number(main.pragma("wal_autocheckpoint", { simple: true }));
      main.pragma("wal_autocheckpoint = 0");
    } catch {
      // Like a poke, this must never fail the commit it comes before: SQLite then checkpoints as usual.
      return undefined;
    }
    return () => {
      // A thread that failed meanwhile has set SQLite's default back itself.
      if (!this.#worker) return;
      try {
        main.pragma(`wal_autocheckpoint = ${previous}`);
      } catch {
        // The connection is closing; nothing is left to checkpoint from it.
      }
      this.#ask();
    };
  }

  /** Stops the thread (its connection closed first); later pokes do nothing. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker) await stopWorker(worker);
  }

  #start(): void {
    const { file, main } = this.#options;
    let worker: Worker;
    try {
      // Resolved here, not at open: a bundler may have placed the driver where only its import finds it.
      const driverPath = this.#options.driverPath();
      const workerData = { file, driverPath, state: this.#state.buffer };
      worker = new Worker(workerSource, { eval: true, workerData });
    } catch {
      this.#failed = true;
      return;
    }
    worker.on("error", () => this.#fail());
    worker.on("exit", () => {
      if (!this.#closed) this.#fail();
    });
    worker.unref();
    this.#worker = worker;
    main.pragma("wal_autocheckpoint = 16384");
  }

  #fail(): void {
    this.#failed = true;
    this.#worker = undefined;
    if (!this.#closed) this.#options.main.pragma("wal_autocheckpoint = 1000");
  }
}
