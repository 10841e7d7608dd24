import { createHash } from "node:crypto";
import type { PostgresPool, PostgresPoolClient } from "kysely";

/** How many named statements one PostgreSQL connection prepares at most, by default. */
export const defaultNamedStatementsPerConnection = 100;

/** The part of a node-postgres client this wrapper calls. */
interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<unknown>;
  query(text: unknown, values?: unknown): Promise<unknown>;
  release(err?: Error | boolean): void;
}

/** What one server connection has prepared. */
interface ConnectionState {
  /** Statement names by SQL text. */
  names: Map<string, string>;
  /** How many times a text was renamed after its statement went stale (see below). */
  renamed: number;
  inTransaction: boolean;
}

/**
 * Prepare once on PostgreSQL: named prepared statements. Kysely's PostgresDriver sends each query
 * as text and values (`client.query(sql, values)`), which node-postgres runs as an unnamed
 * statement: parsed, analysed and planned on every call. Given a name (`{ name, text, values }`),
 * node-postgres sends Parse once per connection (it remembers the names it parsed) and afterwards
 * only Bind/Execute; the server keeps the statement for the session and reuses its plan (a
 * custom plan for the first five runs, then the generic one when it costs no more). Measured on
 * the Thread list's statements: 25–40 % less time per statement (bench/README.md § Prepared
 * statements).
 *
 * - The name is a hash of the text, so a text has one name on every connection.
 * - Bounded: a connection names at most `maxPerConnection` texts (then runs further texts
 *   unnamed), since neither node-postgres nor the server forgets a named statement before the
 *   connection closes. Texts with no parameters (`begin`, `commit`) are never named.
 * - A migration run by another process can change a table under a prepared `select *`: the next
 *   run fails with "cached plan must not change result type" (SQLSTATE 0A000). Outside a
 *   transaction the query is run again under a new name (prepared afresh); inside one the error
 *   stands (the transaction is already aborted) and the request may be retried.
 * - Transaction-mode poolers (PgBouncer before 1.21, or without `max_prepared_statements`; some
 *   managed proxies) send the next query to another server connection, where the name is unknown
 *   ("prepared statement … does not exist", brianc/node-postgres#2327): open the database with
 *   `preparedStatements: false` there.
 */
export function namedStatements(
  pool: PostgresPool,
  options: { maxPerConnection?: number } = {},
): PostgresPool {
  const max = options.maxPerConnection ?? defaultNamedStatementsPerConnection;
  const states = new WeakMap<PgClient, ConnectionState>();
  return {
    connect: async () => {
      const client = (await pool.connect()) as unknown as PgClient;
      let state = states.get(client);
      if (!state) {
        state = { names: new Map(), renamed: 0, inTransaction: false };
        states.set(client, state);
      }
      const connection = state;
      const wrapped = {
        query: async (text: unknown, values?: unknown) => {
          if (typeof text !== "string") return client.query(text, values);
          trackTransaction(connection, text);
          if (!Array.isArray(values) || values.length === 0) return client.query(text, values);
          const name = nameFor(connection, text, max);
          if (name === undefined) return client.query(text, values);
          try {
            return await client.query({ name, text, values });
          } catch (err) {
            if (!isStalePlan(err) || connection.inTransaction) throw err;
            connection.renamed++;
            const fresh = `${name}_${connection.renamed}`;
            connection.names.set(text, fresh);
            return client.query({ name: fresh, text, values });
          }
        },
        release: (err?: Error | boolean) => client.release(err),
      };
      return wrapped as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}

function nameFor(state: ConnectionState, text: string, max: number): string | undefined {
  const known = state.names.get(text);
  if (known !== undefined || state.names.size >= max) return known;
  const name = `quire_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`;
  state.names.set(text, name);
  return name;
}

function trackTransaction(state: ConnectionState, text: string): void {
  const head = text.trimStart().slice(0, 18).toLowerCase();
  if (head.startsWith("begin") || head.startsWith("start transaction")) state.inTransaction = true;
  else if (
    head.startsWith("commit") ||
    head === "rollback" ||
    head.startsWith("rollback;") ||
    head.startsWith("end")
  )
    state.inTransaction = false;
}

/** "cached plan must not change result type": a prepared statement whose tables changed shape. */
function isStalePlan(err: unknown): boolean {
  return (
    typeof err === "object" &&
    err !== null &&
    (err as { code?: unknown }).code === "0A000" &&
    /cached plan/.test(String((err as { message?: unknown }).message))
  );
}
