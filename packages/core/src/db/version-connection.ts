// biome-ignore-all lint/suspicious/noExplicitAny: kept beside a database of any shape
import type { Kysely } from "kysely";

/** The part of a node-postgres client the connection uses. */
export interface PgVersionClient {
  connect(): Promise<unknown>;
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * A PostgreSQL connection of its own for the site version read (db/site-version.ts), which every
 * request makes. Through Kysely and the pool, that read cost the process about 95 µs of CPU; on a
 * client kept for it alone, about 67 µs (no pool checkout, no Kysely executor), and a cached public
 * page went from about 42 % to about 52 % of a bare node:http server, on average over noisy runs
 * (bench/README.md § HTTP › The site version on a connection of its own).
 *
 * - Opened at the first read, with the pool's settings (URL, `search_path`, type parsers).
 * - The read is a named prepared statement, unless the database was opened with
 *   `statementCacheSize: 0` (a transaction-mode pooler): then unnamed.
 * - A query that fails drops the client; the next read opens a new one. The caller then reads
 *   through the pool instead (`SiteVersionReader`), so a connection the server closed (a
 *   restart, `idle_session_timeout`, `pg_terminate_backend`) never reaches a request.
 * - One query at a time: node-postgres queues the rest on the client, and the reader never has more
 *   than one in flight anyway.
 * - Closed with the pool (db/open.ts), whichever Kysely instance sharing the pool is destroyed.
 * - Closed after 10 s without a query, as the pool closes its idle clients (node-postgres'
 *   `idleTimeoutMillis` default), and opened again by the next read: a script that never destroys
 *   its database still exits once both are idle, as it did before this connection existed.
 */
export class VersionConnection {
  #client: Promise<PgVersionClient> | undefined;
  #closed = false;
  #opened = 0;
  #inFlight = 0;
  #idle: ReturnType<typeof setTimeout> | undefined;
  /** Statement names by text: node-postgres refuses one name for two texts. */
  readonly #names = new Map<string, string>();

  constructor(
    private readonly options: {
      /** A new, unconnected client with the pool's settings. */
      newClient: () => PgVersionClient;
      /** Whether to prepare the read once (a named statement). */
      named: boolean;
      onError?: (error: Error) => void;
      /** How long the connection may stay unused before it is closed (default 10 s). */
      idleMs?: number;
    },
  ) {}

  /** How many connections have been opened so far (one, unless the server closed some). */
  get opened(): number {
    return this.#opened;
  }

  async query(text: string, values: readonly unknown[]): Promise<{ rows: unknown[] }> {
    if (this.#closed) throw new Error("The database has been closed");
    clearTimeout(this.#idle);
    this.#inFlight += 1;
    const pending = this.#connected();
    try {
      const client = await pending;
      return await client.query(
        this.options.named
          ? { name: this.#nameOf(text), text, values: [...values] }
          : { text, values: [...values] },
      );
    } catch (error) {
      this.#drop(pending);
      throw error;
    } finally {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#closeWhenIdle(pending);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idle);
    const pending = this.#client;
    this.#client = undefined;
    if (pending) await pending.then((client) => client.end()).catch(() => {});
  }

  #nameOf(text: string): string {
    let name = this.#names.get(text);
    if (name === undefined) {
      name = `quire_versions_${this.#names.size + 1}`;
      this.#names.set(text, name);
    }
    return name;
  }

  #connected(): Promise<PgVersionClient> {
    if (this.#client) return this.#client;
    const client = this.options.newClient();
    // Without a listener, a connection the server drops while idle would crash the process.
    client.on("error", (error) => {
      this.#drop(pending);
      this.options.onError?.(error);
    });
    this.#opened += 1;
    const pending = client.connect().then(
      () => client,
      (error: unknown) => {
        this.#drop(pending);
        throw error;
      },
    );
    this.#client = pending;
    return pending;
  }

  #closeWhenIdle(pending: Promise<PgVersionClient>): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#inFlight === 0) this.#drop(pending);
    }, this.options.idleMs ?? 10_000);
    // The timer alone keeps no process alive; the open connection does, until the timer ends it.
    this.#idle.unref?.();
  }

  /** Forgets `pending` if it is still the client in use, and ends it. */
  #drop(pending: Promise<PgVersionClient>): void {
    if (this.#client !== pending) return;
    this.#client = undefined;
    pending.then((client) => client.end()).catch(() => {});
  }
}

const connections = new WeakMap<Kysely<any>, VersionConnection>();

/** Gives `db` (opened by `openDatabase` on PostgreSQL) its version connection. */
export function registerVersionConnection(db: Kysely<any>, connection: VersionConnection): void {
  connections.set(db, connection);
}

/** The version connection of a database opened by `openDatabase` on PostgreSQL; undefined otherwise. */
export function versionConnectionOf(db: Kysely<any>): VersionConnection | undefined {
  return connections.get(db);
}
