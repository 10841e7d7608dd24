// biome-ignore-all lint/suspicious/noExplicitAny: works on any database shape
import type { Kysely } from "kysely";

/**
 * A cheap answer to "has any connection, in any process, committed to this database since
 * then?", without a query: for a SQLite file in WAL mode, its wal-index header (db/wal-index-probe.ts).
 * A reader that can tell nothing was committed may keep what it last read.
 */
export interface ChangeProbe {
  /**
   * The database's state now, to compare with a later mark (see {@link sameMark}); undefined when
   * it cannot be told (a read error included): then ask the database.
   */
  mark(): Uint8Array | undefined;
}

/** True only when marks `a` and `b` show the same state, with no commit between them. */
export function sameMark(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
