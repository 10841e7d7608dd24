import type { EngineContext } from "../deps.js";
import { sweepOrphans } from "./sweep-orphans.js";
import { discardSessionUploads, expireSession, finishedRetentionSeconds } from "./upload-session.js";

/** What one cleanup pass did. */
export interface UploadCleanup {
  /** Open sessions past their lifetime that were expired, their bytes deleted. */
  expired: number;
  /** Finished session rows past their retention that were removed. */
  removed: number;
  /** Orphans deleted from the store: files no record owns, stale scratch, stray multipart uploads. */
  swept: number;
}

/** Options for {@link cleanupExpiredUploads}. */
export interface UploadCleanupOptions {
  /** Sessions handled per step (default 1000). */
  limit?: number;
  /** Sweep the store for orphans too (default true). */
  sweep?: boolean;
  /** Files the sweep looks at per run (default 1000); the next run goes on from there. */
  sweepObjects?: number;
}

/**
 * Expires open sessions past their lifetime: marks them `expired` (so a late write answers 400),
 * aborts their multipart upload and deletes their bytes. Then removes finished session rows a day
 * past their expiry, and sweeps the store for what crashes left behind (see `sweepOrphans`). Safe
 * to run from several processes at once: each session is claimed by one update, and deleting an
 * orphan twice is harmless. Runs lazily (a few sessions, no sweep) at every upload init, and whole
 * from `engine.cleanupExpiredUploads()`.
 * @see docs/media.md § Cleanup
 */
export async function cleanupExpiredUploads(
  ctx: EngineContext,
  options: UploadCleanupOptions = {},
): Promise<UploadCleanup> {
  const now = ctx.clock.now();
  const limit = options.limit ?? 1000;
  const expired = await expireOpenSessions(ctx, now, limit);
  const removed = await removeFinishedSessions(ctx, now, limit);
  const swept =
    options.sweep === false ? 0 : await sweepOrphans(ctx, { now, objects: options.sweepObjects ?? 1000 });
  return { expired, removed, swept };
}

async function expireOpenSessions(ctx: EngineContext, now: number, limit: number): Promise<number> {
  const stale = await ctx.db
    .selectFrom("upload_sessions")
    .select(["id", "storage_key", "multipart_upload_id"])
    // Completing too: a claim that lapsed (its process died) leaves the session open.
    .where("state", "in", ["open", "completing"])
    .where("expires_at", "<=", now)
    .limit(limit)
    .execute();
  let expired = 0;
  for (const session of stale) {
    if (!(await expireSession(ctx.db, { id: session.id, now }))) continue;
    expired++;
    await discardSessionUploads(ctx, session);
  }
  return expired;
}

async function removeFinishedSessions(ctx: EngineContext, now: number, limit: number): Promise<number> {
  const old = await ctx.db
    .selectFrom("upload_sessions")
    .select("id")
    .where("state", "in", ["completed", "aborted", "expired"])
    .where("expires_at", "<=", now - finishedRetentionSeconds)
    .limit(limit)
    .execute();
  for (const session of old) {
    // Parts first: a crash in between leaves a session row, which the next run removes.
    await ctx.db.deleteFrom("upload_parts").where("session_id", "=", session.id).execute();
    await ctx.db.deleteFrom("upload_sessions").where("id", "=", session.id).execute();
  }
  return old.length;
}
