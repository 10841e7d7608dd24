import { openRawSqlite } from "./drivers.js";

/** Calls and time of one SQL text, by the better-sqlite3 method that ran it. */
interface StatementTime {
  calls: number;
  nanoseconds: bigint;
}

/**
 * Times every better-sqlite3 statement call in this process (`run`, `all`, `get`, `iterate`), by
 * SQL text: what `bench:write --statements=on` prints per create. It wraps the methods of
 * better-sqlite3's `Statement` prototype, shared by every connection, so it sees the engine's
 * statements without a hook in the engine; the wrapper costs a few microseconds per call, which
 * the series' own figures then include. better-sqlite3 is loaded from `@quire/core`, as the engine loads it.
 */
export class StatementClock {
  readonly #times = new Map<string, StatementTime>();

  constructor() {
    const scratch = openRawSqlite(":memory:");
    const prototype = Object.getPrototypeOf(scratch.prepare("select 1")) as Record<string, unknown>;
    scratch.close();
    const times = this.#times;
    for (const method of ["run", "all", "get", "iterate"]) {
      const original = prototype[method] as (...args: unknown[]) => unknown;
      prototype[method] = function (this: { source: string }, ...args: unknown[]) {
        const started = process.hrtime.bigint();
        try {
          return original.apply(this, args);
        } finally {
          const key = `${method} ${this.source.replace(/\s+/g, " ")}`;
          const time = times.get(key) ?? { calls: 0, nanoseconds: 0n };
          time.calls += 1;
          time.nanoseconds += process.hrtime.bigint() - started;
          times.set(key, time);
        }
      };
    }
  }

  /** Forgets what was timed so far (the warm-up). */
  reset(): void {
    this.#times.clear();
  }

  /** The statements by time spent, per unit of work (`per`: the creates of a series), as Markdown rows. */
  table(per: number): string {
    const rows = [...this.#times]
      .sort((a, b) => Number(b[1].nanoseconds - a[1].nanoseconds))
      .map(([sql, time]) => {
        const micros = Number(time.nanoseconds) / per / 1000;
        const text = sql.length > 90 ? `${sql.slice(0, 90)}…` : sql;
        return `| ${time.calls} | ${(time.calls / per).toFixed(2)} | ${micros.toFixed(1)} | \`${text}\` |`;
      });
    return ["| calls | per create | µs per create | statement |", "|---|---|---|---|", ...rows].join("\n");
  }
}
