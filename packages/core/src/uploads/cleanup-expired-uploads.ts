import type { EngineContext } from "../deps.js";
import { deleteStoredKeys } from "../files/stored-objects.js";
import {
  discardSessionUploads,
  expireSession,
  finishedRetentionSeconds,
  sessionKeys,
} from "./upload-session.js";

/** What one cleanup pass did. */
export interface UploadCleanup {
  /** Open sessions past their lifetime that were expired, their bytes deleted. */
  expired: number;
  /** Finished session rows past their retention that were removed. */
  removed: number;
}

/**
 * Expires open sessions past their lifetime: marks them `expired` (so a late write answers 400),
 * aborts their multipart upload and deletes their bytes. Then removes finished session rows a day
 * past their expiry, deleting the bytes of any completed session whose media record never came to
 * be. Safe to run from several processes at once: each session is claimed by one update.
 * Runs lazily (a few sessions) at every upload init, and whole from `engine.cleanupExpiredUploads()`.
 * @see docs/media.md § Cleanup
 */
export async function cleanupExpiredUploads(
  ctx: EngineContext,
  options: { limit?: number } = {},
): Promise<UploadCleanup> {
  const now = ctx.clock.now();
  const limit = options.limit ?? 1000;
  return {
    expired: await expireOpenSessions(ctx, now, limit),
    removed: await removeFinishedSessions(ctx, now, limit),
  };
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
    .selectFrom("upload_sessions as s")
    .leftJoin("media as m", "m.id", "s.media_id")
    .select(["s.id", "s.state", "s.storage_key", "m.id as media_row"])
    .where("s.state", "in", ["completed", "aborted", "expired"])
    .where("s.expires_at", "<=", now - finishedRetentionSeconds)
    .limit(limit)
    .execute();
  for (const session of old) {
    // A completed session without its record means a crash between the two writes.
    if (session.state === "completed" && session.media_row === null) {
      await deleteStoredKeys(ctx, sessionKeys(session));
    }
    await ctx.db.deleteFrom("upload_parts").where("session_id", "=", session.id).execute();
    await ctx.db.deleteFrom("upload_sessions").where("id", "=", session.id).execute();
  }
  return old.length;
}
