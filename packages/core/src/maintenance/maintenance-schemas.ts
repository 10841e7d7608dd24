import * as z from "zod";
import { cursorParam, limitParam } from "../shared/list-params.js";

/**
 * Inputs (values) and answer shapes of the internal admin's maintenance operations.
 * @see docs/internal-admin.md
 */

const unixTime = z.number().int().describe("Unix seconds");
const nullableTime = unixTime.nullable();
const days = z.number().int().min(1).max(36_500);
const nextCursor = z
  .string()
  .nullable()
  .describe("Pass back unchanged for the next batch; null once the last batch is done");

/** Input of `tokens.health`. */
export const tokenHealthInput = z.object({
  /** A token not used (or, never used, created) for this many days counts as stale. */
  staleDays: days.default(90),
});

/** Answer of `tokens.health`. */
export const tokenHealthOutput = z.object({
  total: z.number().int(),
  active: z.number().int(),
  stale: z.number().int(),
  neverUsed: z.number().int(),
  staleDays: z.number().int(),
  staleBefore: unixTime,
  oldestCreatedAt: nullableTime,
  oldestLastUsedAt: nullableTime,
  newestLastUsedAt: nullableTime,
});

/** Input of `tokens.purge`: which tokens go, and whether only to list them. */
export const purgeTokensInput = z.object({
  /** Deletes tokens not used (or, never used, created) for this many days. Required: no default purge. */
  unusedDays: days,
  dryRun: z.boolean().default(false),
});

const tokenSummary = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: unixTime,
  lastUsedAt: nullableTime,
});

/** Answer of `tokens.purge`. */
export const purgeTokensOutput = z.object({
  dryRun: z.boolean(),
  /** Tokens deleted (with `dryRun`: that would be). */
  purged: z.number().int(),
  tokens: z.array(tokenSummary),
});

/** Input of `uploads.cleanup`. */
export const cleanupUploadsInput = z.object({
  /** Sessions expired, and finished sessions removed, per step (at most 1000). */
  limit: limitParam({ max: 1000, default: 1000 }),
  /** Sweep the store for orphaned files too. */
  sweep: z.boolean().default(true),
  /** Stored files the sweep looks at (at most 10,000); the next run goes on from there. */
  sweepObjects: limitParam({ min: 0, max: 10_000, default: 1000 }),
});

/** Answer of `uploads.cleanup`. */
export const cleanupUploadsOutput = z.object({
  expired: z.number().int().describe("Open sessions past their lifetime, expired with their bytes deleted"),
  removed: z.number().int().describe("Finished session rows past their retention, removed"),
  swept: z.number().int().describe("Orphans deleted from the store"),
});

/** Input of `search.reindex`: one batch of posts, in ID order. */
export const reindexSearchInput = z.object({
  cursor: cursorParam,
  /** Posts per batch (at most 1000). */
  limit: limitParam({ max: 1000, default: 200 }),
});

/** Answer of `search.reindex`. */
export const reindexSearchOutput = z.object({
  processed: z.number().int().describe("Posts looked at in this batch"),
  indexed: z.number().int().describe("Of those, published posts whose search text was written"),
  nextCursor,
});

/** Input of `posts.rebuildHtml`: one batch of posts with a body, in ID order. */
export const rebuildHtmlInput = z.object({
  cursor: cursorParam,
  /** Posts per batch (at most 500). */
  limit: limitParam({ max: 500, default: 100 }),
  /** Only report what would change. */
  dryRun: z.boolean().default(false),
});

/** Answer of `posts.rebuildHtml`. */
export const rebuildHtmlOutput = z.object({
  dryRun: z.boolean(),
  scanned: z.number().int().describe("Posts with a body looked at in this batch"),
  changed: z.number().int().describe("Posts whose stored HTML was rewritten (with dryRun: would be)"),
  unchanged: z.number().int().describe("Posts whose stored HTML was already what their body renders to"),
  skipped: z
    .number()
    .int()
    .describe("Posts edited between the read and the write, or with an unreadable body"),
  changedIds: z.array(z.string()),
  skippedIds: z.array(z.string()),
  nextCursor,
});
