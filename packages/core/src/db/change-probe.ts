// biome-ignore-all lint/suspicious/noExplicitAny: works on any database shape
import type { Kysely } from "kysely";

/**
 * A cheap answer to "has any connection, in any process, committed to this database since
 * then?", without a query: for a SQLite file in WAL mode, its wal-index header (db/wal-index-probe.ts).
 * A reader that can tell nothing was committed may keep what it last read.
 */
export interface ChangeProbe {
  /** The database's state now, to compare later; undefined when it cannot be told (then ask the database). */
  mark(): Uint8Array | undefined;
  /**
   * True only when nothing has been committed since `mark` was taken: the same state, with no
   * commit in between. False whenever that is not certain (a read error included).
   */
  unchangedSince(mark: Uint8Array): boolean;
}

const probes = new WeakMap<Kysely<any>, ChangeProbe>();

/**
 * Tells readers of `db` how to see that nothing changed (db/open.ts, for a SQLite file it opened).
 * Kept beside the instance, as the read snapshot and the search index are, so core's main entry
 * loads no `node:fs` for it.
 */
export function registerChangeProbe(db: Kysely<any>, probe: ChangeProbe): void {
  probes.set(db, probe);
}

/** The change probe of a database opened by `openDatabase` on a SQLite file; undefined otherwise. */
export function changeProbeOf(db: Kysely<any>): ChangeProbe | undefined {
  return probes.get(db);
}
