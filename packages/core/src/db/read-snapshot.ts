// biome-ignore-all lint/suspicious/noExplicitAny: works on any database shape
import type { Kysely } from "kysely";
import type { DialectName } from "./dialect.js";

/** Reads that all see the database as it was at one instant, however long they take. */
export interface ReadSnapshot<DB = any> {
  db: Kysely<DB>;
  /** Ends the snapshot and frees what it holds. */
  end(): Promise<void>;
}

/** How to open a read snapshot beside a Kysely instance, for a database the engine opened itself. */
type SnapshotOpener = () => Promise<ReadSnapshot>;

const openers = new WeakMap<Kysely<any>, SnapshotOpener>();

/**
 * Tells {@link openReadSnapshot} how to read `db` at one instant without holding `db` itself: for a
 * SQLite file, a second connection to the same file (db/open.ts). Kept beside the instance rather
 * than on the dialect object, since only a database opened by file has a second connection to give.
 */
export function registerReadSnapshot(db: Kysely<any>, opener: SnapshotOpener): void {
  openers.set(db, opener);
}

/**
 * A read snapshot of `db`, or undefined when none can be had without holding up the engine:
 *
 * - PostgreSQL: a read-only `REPEATABLE READ` transaction on one pooled connection; the pool's
 *   other connections serve everything else meanwhile.
 * - SQLite opened by {@link openDatabase} on a file: a second connection to the file, in a read
 *   transaction. In WAL mode a reader sees the database as of its transaction's first read, and
 *   neither blocks the writer nor waits for it; the engine's own connection stays free. (A
 *   transaction on the engine's one connection would hold every other call of the engine for the
 *   whole read.) While the snapshot is open, checkpoints cannot move past it, so the WAL file grows
 *   with what is written meanwhile, and shrinks back at the next checkpoint after it ends.
 * - SQLite in memory, or a Kysely instance built by hand: undefined.
 */
export async function openReadSnapshot<DB>(
  db: Kysely<DB>,
  dialect: DialectName,
): Promise<ReadSnapshot<DB> | undefined> {
  if (dialect === "postgres") {
    const trx = await db
      .startTransaction()
      .setIsolationLevel("repeatable read")
      .setAccessMode("read only")
      .execute();
    return {
      db: trx,
      end: async () => {
        await trx.rollback().execute();
      },
    };
  }
  const opener = openers.get(db);
  return opener ? ((await opener()) as ReadSnapshot<DB>) : undefined;
}
