import { sql } from "kysely";
import type { EngineContext } from "../deps.js";

/** A token as the maintenance answers list it: never its secret or hash. */
export interface TokenSummary {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** Figures about the site's API tokens at one instant. */
export interface TokenFigures {
  total: number;
  /** Used (or, never used, created) since the cutoff. */
  active: number;
  /** Last used before the cutoff, or never used and created before it. */
  stale: number;
  /** Never used, whatever their age. */
  neverUsed: number;
  oldestCreatedAt: number | null;
  oldestLastUsedAt: number | null;
  newestLastUsedAt: number | null;
}

/**
 * A token's last sign of life: its last use, else its creation. Use is recorded at most once a
 * minute (`verifyApiToken`), far below the day-sized cutoffs this is compared with.
 */
const lastSeen = sql<number>`coalesce(last_used_at, created_at)`;

/** The token figures, in one aggregate query; `cutoff` (Unix seconds) splits active from stale. */
export async function tokenFigures(ctx: Pick<EngineContext, "db">, cutoff: number): Promise<TokenFigures> {
  const row = await ctx.db
    .selectFrom("api_tokens")
    .select([
      sql<string | number>`count(*)`.as("total"),
      sql<string | number | null>`sum(case when ${lastSeen} < ${cutoff} then 1 else 0 end)`.as("stale"),
      sql<string | number | null>`sum(case when last_used_at is null then 1 else 0 end)`.as("never_used"),
      sql<string | number | null>`min(created_at)`.as("oldest_created_at"),
      sql<string | number | null>`min(last_used_at)`.as("oldest_last_used_at"),
      sql<string | number | null>`max(last_used_at)`.as("newest_last_used_at"),
    ])
    .executeTakeFirstOrThrow();
  const total = Number(row.total);
  const stale = Number(row.stale ?? 0);
  return {
    total,
    active: total - stale,
    stale,
    neverUsed: Number(row.never_used ?? 0),
    oldestCreatedAt: nullableNumber(row.oldest_created_at),
    oldestLastUsedAt: nullableNumber(row.oldest_last_used_at),
    newestLastUsedAt: nullableNumber(row.newest_last_used_at),
  };
}

/**
 * Deletes the tokens not seen since `cutoff` (last used before it, or never used and created
 * before it), in one statement that decides per row as it deletes: a token used meanwhile is kept.
 * With `dryRun`, lists them and deletes nothing. Oldest first.
 */
export async function purgeStaleTokens(
  ctx: Pick<EngineContext, "db">,
  input: { cutoff: number; dryRun: boolean },
): Promise<TokenSummary[]> {
  const rows = input.dryRun
    ? await ctx.db
        .selectFrom("api_tokens")
        .select(["id", "name", "created_at", "last_used_at"])
        .where(lastSeen, "<", input.cutoff)
        .execute()
    : await ctx.db
        .deleteFrom("api_tokens")
        .where(lastSeen, "<", input.cutoff)
        .returning(["id", "name", "created_at", "last_used_at"])
        .execute();
  return rows
    .map((row) => ({
      id: row.id,
      name: row.name,
      createdAt: Number(row.created_at),
      lastUsedAt: nullableNumber(row.last_used_at),
    }))
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}

function nullableNumber(value: string | number | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}
