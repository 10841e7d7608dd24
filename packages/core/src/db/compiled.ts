import {
  type Compilable,
  type CompiledQuery,
  type Expression,
  type Kysely,
  type KyselyPlugin,
  type RawBuilder,
  sql,
} from "kysely";
import type { Dialect, DialectName } from "./dialect.js";
import { detectDialect } from "./dialect.js";
import type { Database } from "./schema.js";

/**
 * Compile once: a query of fixed shape, built and compiled by Kysely once per database (dialect
 * and plugins), then run many times with new values, so a hot read or write pays neither building
 * the query tree nor compiling it to SQL on each call. With the same SQL text on every call, the
 * driver prepares it once per connection (SQLite: db/statement-cache.ts; PostgreSQL: named
 * statements, db/pg-named.ts).
 *
 * This is the approach of `kysely-params` (jtlapp/kysely-params: build with placeholder values,
 * compile on first use, swap the placeholders for values on each call) and of Kysely's recipe
 * "Splitting query building and execution" (kysely.dev/docs/recipes/splitting-query-building-and-execution:
 * `query.compile()`, then `db.executeQuery(compiled)`), written here in a few lines instead of a
 * dependency: it only relies on `compile()`, `executeQuery()` and `CompiledQuery.parameters`.
 *
 * How to use it — declare the statement once, at module level, with its parameters' types:
 *
 * ```ts
 * const postBySlug = compiled<{ slug: string; status: string }>()((db, p) =>
 *   db.selectFrom("posts").selectAll().where("slug", "=", p.value("slug")).where("status", "=", p.value("status")),
 * );
 * // then, in an operation (ctx.db or a transaction `trx`: the SQL is the same):
 * const row = await postBySlug.executeTakeFirst(ctx.db, { slug, status: "published" });
 * const rows = await postBySlug.execute(trx, { slug, status: "draft" });
 * ```
 *
 * - `p.value(name)` stands where a value goes (`where`, `values`, `set`, `limit`, `sql` templates);
 *   constants written in the builder stay as they were compiled.
 * - `p.list(name)` stands for a list of strings on the right of `in`:
 *   `.where("thread_id", "in", p.list("threadIds"))`. Kysely writes one placeholder per element of
 *   an array, so a list of another length would be another SQL text (and another prepared
 *   statement); a list is instead one parameter: `(select value from json_each(?))` on SQLite,
 *   `(select unnest($1::text[]))` on PostgreSQL.
 * - The shape must not depend on the values: no `if (input.x)` inside `build`. Optional filters
 *   are either separate statements or stay on the ordinary builder.
 * - Results go through the database's plugins as any query's do; `execute*` answer the rows typed
 *   as the builder's output.
 */
export function compiled<P extends Record<string, unknown>>() {
  return <O>(build: (db: Kysely<Database>, p: Params<P>) => Compilable<O>): CompiledStatement<P, O> =>
    new CompiledStatement<P, O>(build);
}

/** The placeholders a {@link compiled} statement's builder receives. */
export interface Params<P> {
  /** The value of parameter `name` (typed as the parameter, for the builder's type checks). */
  value<K extends keyof P & string>(name: K): P[K];
  /** A list of strings as one parameter, for the right side of `in`. */
  list<K extends ListKeys<P>>(name: K): Expression<string>;
  /**
   * The database's dialect, for the few clauses that differ between the two (`lockingRead`): the
   * statement is compiled once per database, so each gets its own SQL.
   */
  readonly dialect: Dialect;
}

type ListKeys<P> = { [K in keyof P & string]: P[K] extends readonly string[] ? K : never }[keyof P & string];

/** One parameter of the compiled SQL: a constant of the builder, or a value read from the call. */
type Slot =
  | { kind: "constant"; value: unknown }
  | { kind: "value"; name: string }
  | { kind: "list"; name: string; dialect: DialectName };

/** The SQL of one database (dialect and plugins) and where each parameter comes from. */
interface Compiled {
  plugins: readonly KyselyPlugin[];
  query: CompiledQuery<unknown>;
  slots: Slot[];
}

/** A placeholder value: compiled as an ordinary parameter, recognised by identity afterwards. */
class Placeholder {
  constructor(
    readonly name: string,
    readonly list: boolean,
  ) {}
}

/** A statement built and compiled once per database, run with new values. See {@link compiled}. */
export class CompiledStatement<P extends Record<string, unknown>, O> {
  readonly #build: (db: Kysely<Database>, p: Params<P>) => Compilable<O>;
  /**
   * Per adapter (a Kysely instance and its transactions share one), the compilations by plugin
   * list (usually one). Weak, so a closed database's entries go with it.
   */
  readonly #byAdapter = new WeakMap<object, Compiled[]>();

  constructor(build: (db: Kysely<Database>, p: Params<P>) => Compilable<O>) {
    this.#build = build;
  }

  /** The rows of the statement run with `params` on `db` (a Kysely instance or a transaction). */
  async execute(db: Kysely<Database>, params: P): Promise<O[]> {
    const result = await db.executeQuery(this.compile(db, params));
    return result.rows;
  }

  /** The first row, or undefined. */
  async executeTakeFirst(db: Kysely<Database>, params: P): Promise<O | undefined> {
    return (await this.execute(db, params))[0];
  }

  /** The compiled query with `params` in place, as `db.executeQuery` takes it. */
  compile(db: Kysely<Database>, params: P): CompiledQuery<O> {
    const { query, slots } = this.#compiledFor(db);
    const parameters = slots.map((slot) => {
      if (slot.kind === "constant") return slot.value;
      const value = params[slot.name];
      if (slot.kind === "value") return value;
      const list = value as readonly string[];
      return slot.dialect === "sqlite" ? JSON.stringify(list) : list;
    });
    return { ...query, parameters } as CompiledQuery<O>;
  }

  #compiledFor(db: Kysely<Database>): Compiled {
    const executor = db.getExecutor();
    const entries = this.#byAdapter.get(executor.adapter) ?? [];
    const plugins = executor.plugins;
    const found = entries.find((entry) => samePlugins(entry.plugins, plugins));
    if (found) return found;
    const detected = detectDialect(db);
    const dialect = detected.name;
    const p: Params<P> = {
      value: (name) => new Placeholder(name, false) as never,
      list: (name) => listExpression(dialect, new Placeholder(name, true)),
      dialect: detected,
    };
    const query = this.#build(db, p).compile() as CompiledQuery<unknown>;
    const slots = query.parameters.map((value): Slot => {
      if (!(value instanceof Placeholder)) return { kind: "constant", value };
      return value.list ? { kind: "list", name: value.name, dialect } : { kind: "value", name: value.name };
    });
    const entry: Compiled = { plugins: [...plugins], query, slots };
    this.#byAdapter.set(executor.adapter, [...entries, entry]);
    return entry;
  }
}

function listExpression(dialect: DialectName, placeholder: Placeholder): RawBuilder<string> {
  return dialect === "sqlite"
    ? sql<string>`(select value from json_each(${placeholder}))`
    : sql<string>`(select unnest(${placeholder}::text[]))`;
}

function samePlugins(a: readonly KyselyPlugin[], b: readonly KyselyPlugin[]): boolean {
  return a.length === b.length && a.every((plugin, i) => plugin === b[i]);
}
