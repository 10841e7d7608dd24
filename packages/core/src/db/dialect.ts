import { type Kysely, PostgresAdapter } from "kysely";
import type { DialectName } from "../deps.js";

/** Which SQL dialect a Kysely instance speaks; the one seam where dialects differ. */
// biome-ignore lint/suspicious/noExplicitAny: any database shape
export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}
