import type { ExpressionBuilder, Kysely, Selectable } from "kysely";
import * as z from "zod";
import type { Database, UploadSessionsTable } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { conflict, notFound, validationError } from "../errors.js";
import { posterKeyOf } from "../files/storage-keys.js";
import { deleteStoredKeys } from "../files/stored-objects.js";
import { bytesParam } from "../shared/bytes.js";

/** A session row as read. */
export type UploadSessionRow = Selectable<UploadSessionsTable>;

/**
 * States of a session. `completing` is an open session that a `complete` request has claimed:
 * while its claim is live (renewed as the completion runs) other requests answer 409; once the
 * claim lapses (the process died) the session counts as `open` again. `expired` is written by
 * cleanup; an open session past its time reads as expired too.
 */
export type UploadState = "open" | "completing" | "completed" | "aborted" | "expired";

/**
 * The state changes a session may make. A session leaves `open` once, to whichever request (or
 * cleanup) claims it first; a completion ends `completed` (in the transaction that inserts the
 * media record), `aborted` (its file failed a check) or `open` again (a failure of the store or
 * the database: the bytes stay and the client may retry).
 * @see spec § Upload session, docs/media.md § Session states and lifetime
 */
const transitions: Record<UploadState, readonly UploadState[]> = {
  open: ["completing", "aborted", "expired"],
  completing: ["completed", "aborted", "open"],
  completed: [],
  aborted: [],
  expired: [],
};

/** How long a session stays open without activity. @see spec § Limits (upload session lifetime) */
export const sessionLifetimeSeconds = 15 * 60;

/** How long a finished (completed, aborted, expired) session row is kept before cleanup removes it. */
export const finishedRetentionSeconds = 24 * 60 * 60;

/**
 * How long a completion's claim lasts without renewal. A running completion renews it every third
 * of this; a claim older than this belongs to a process that died, and the session is open again.
 */
export const completionLeaseSeconds = 15;

/** The bytes of a request: a Web stream, any async iterable of byte chunks, or bytes; absent is empty. */
export const bodyParam = bytesParam.optional().transform((value) => value ?? new Uint8Array(0));

/** The request's declared `Content-Length`, when the transport knows it. */
export const contentLengthParam = z.number().int().min(0).optional();

/**
 * The session, if the client may still write to or finish it: 404 when unknown, 409 when completed,
 * aborted or being completed, 400 when expired. @see spec § Upload session
 */
export async function findOpenSession(ctx: EngineContext, id: string): Promise<UploadSessionRow> {
  const row = await ctx.db.selectFrom("upload_sessions").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw notFound("upload session", id);
  const now = ctx.clock.now();
  if (row.state === "completed") throw conflict(`Upload ${id} is already completed`);
  if (row.state === "aborted") throw conflict(`Upload ${id} was aborted`);
  if (row.state === "completing" && Number(row.updated_at) > now - completionLeaseSeconds) {
    throw conflict(`Upload ${id} is being completed`);
  }
  if (row.state === "expired" || now >= Number(row.expires_at)) {
    throw validationError(`Upload ${id} has expired; start a new upload`);
  }
  return row;
}

/**
 * Records activity on an open session, which keeps it open for another lifetime (and ends a
 * lapsed completion claim). A write that began while the session was open counts even when it
 * ends past the lifetime, unless cleanup or another request closed the session meanwhile: then
 * this answers false.
 */
export async function touchSession(
  db: Kysely<Database>,
  input: { id: string; now: number; changes?: { received_size?: number | null; poster_key?: string } },
): Promise<boolean> {
  const result = await db
    .updateTable("upload_sessions")
    .set({
      ...input.changes,
      state: "open",
      updated_at: input.now,
      expires_at: input.now + sessionLifetimeSeconds,
    })
    .where("id", "=", input.id)
    .where(isOpen(input.now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Throws what a request to a session that is no longer open gets: 409, 400 (expired) or 404. */
export async function throwClosed(ctx: EngineContext, id: string): Promise<never> {
  await findOpenSession(ctx, id);
  throw conflict(`Upload ${id} is no longer open`);
}

/** Claims an open session for abortion; when another request or cleanup got there first, throws as it now stands. */
export async function closeSession(ctx: EngineContext, input: { id: string; to: "aborted" }): Promise<void> {
  const now = ctx.clock.now();
  if (!(await moveSession(ctx.db, { id: input.id, from: "open", to: input.to, now }))) {
    await throwClosed(ctx, input.id);
  }
}

/** Expires an open session past its lifetime: true when this call did, false when another got there first. */
export async function expireSession(
  db: Kysely<Database>,
  input: { id: string; now: number },
): Promise<boolean> {
  return moveSession(db, { id: input.id, from: "open", to: "expired", now: input.now, expiry: "past" });
}

/** A completion's hold on its session: the session's id and the time its claim was last renewed. */
export interface CompletionClaim {
  id: string;
  at: number;
}

/**
 * Claims an open session (within its lifetime) for completion; the claim counts as activity. When
 * another request or cleanup claimed it first, throws as the session now stands: 409, 400 or 404.
 */
export async function claimCompletion(ctx: EngineContext, id: string): Promise<CompletionClaim> {
  const now = ctx.clock.now();
  const claimed = await moveSession(ctx.db, {
    id,
    from: "open",
    to: "completing",
    now,
    expiry: "live",
    expiresAt: now + sessionLifetimeSeconds,
  });
  if (!claimed) await throwClosed(ctx, id);
  return { id, at: now };
}

/**
 * Keeps a claim live while a completion runs: renews it every third of the lease. Call `stop()`
 * before the claim's final change, which must see the last renewal.
 */
export function holdClaim(ctx: EngineContext, claim: CompletionClaim): { stop(): Promise<void> } {
  let pending: Promise<unknown> = Promise.resolve();
  const renew = async () => {
    const now = ctx.clock.now();
    if (now === claim.at) return;
    const renewed = await moveSession(ctx.db, {
      id: claim.id,
      from: "completing",
      to: "completing",
      claim,
      now,
    });
    if (renewed) claim.at = now;
  };
  const timer = setInterval(
    () => {
      pending = pending.then(renew).catch((err: unknown) => {
        ctx.logger.warn("could not renew an upload's completion claim", { id: claim.id, error: String(err) });
      });
    },
    (completionLeaseSeconds * 1000) / 3,
  );
  (timer as { unref?: () => void }).unref?.();
  return {
    stop: async () => {
      clearInterval(timer);
      await pending;
    },
  };
}

/**
 * The last step of a completion, inside the transaction that inserts the media record: the claimed
 * session becomes `completed`. False when the claim was lost (it lapsed and another request took
 * the session): the caller rolls back.
 */
export async function finishCompletion(
  db: Kysely<Database>,
  input: { claim: CompletionClaim; now: number },
): Promise<boolean> {
  return moveSession(db, {
    id: input.claim.id,
    from: "completing",
    to: "completed",
    claim: input.claim,
    now: input.now,
  });
}

/**
 * Ends a claim that could not complete: `aborted` when the file failed a check (true when this call
 * did it, so the caller deletes the bytes), or `open` again with the bytes kept when the store or
 * the database failed. Nothing happens when the claim was lost meanwhile; a failure to write is logged.
 */
export async function settleClaim(
  ctx: EngineContext,
  input: { claim: CompletionClaim; to: "aborted" | "open" },
): Promise<boolean> {
  try {
    return await moveSession(ctx.db, {
      id: input.claim.id,
      from: "completing",
      to: input.to,
      claim: input.claim,
      now: ctx.clock.now(),
    });
  } catch (err) {
    ctx.logger.warn("could not settle an upload's completion claim", {
      id: input.claim.id,
      error: String(err),
    });
    return false;
  }
}

/**
 * Moves a session `from` → `to` in one conditional UPDATE: true when this call made the change,
 * false when the session had already left `from`. From `open`, a `completing` session whose claim
 * lapsed counts as open; from `completing`, only the holder of `claim` moves it. `expiry` requires
 * the session's lifetime to be live or past.
 */
async function moveSession(
  db: Kysely<Database>,
  input: {
    id: string;
    from: "open" | "completing";
    to: UploadState;
    now: number;
    claim?: CompletionClaim | undefined;
    expiry?: "live" | "past" | undefined;
    expiresAt?: number | undefined;
  },
): Promise<boolean> {
  const { from, to, now } = input;
  if (!(transitions[from].includes(to) || (from === "completing" && to === "completing"))) {
    throw new Error(`An upload session cannot go from ${from} to ${to}`);
  }
  let update = db
    .updateTable("upload_sessions")
    .set({
      state: to,
      updated_at: now,
      ...(input.expiresAt === undefined ? {} : { expires_at: input.expiresAt }),
    })
    .where("id", "=", input.id);
  if (from === "open") update = update.where(isOpen(now));
  else {
    if (!input.claim) throw new Error("Only the holder of a claim moves a completing session");
    update = update.where("state", "=", "completing").where("updated_at", "=", input.claim.at);
  }
  if (input.expiry === "live") update = update.where("expires_at", ">", now);
  if (input.expiry === "past") update = update.where("expires_at", "<=", now);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Open, or being completed under a claim that lapsed (its process died): open either way. */
function isOpen(now: number) {
  return (eb: ExpressionBuilder<Database, "upload_sessions">) =>
    eb.or([
      eb("state", "=", "open"),
      eb.and([eb("state", "=", "completing"), eb("updated_at", "<=", now - completionLeaseSeconds)]),
    ]);
}

/**
 * Deletes what a session that ended without a media record stored: its part rows, its multipart
 * upload and its bytes. Failures are logged, never thrown; cleanup removes the rows later anyway.
 */
export async function discardSessionUploads(
  ctx: EngineContext,
  session: Pick<UploadSessionRow, "id" | "storage_key" | "multipart_upload_id">,
): Promise<void> {
  try {
    await ctx.db.deleteFrom("upload_parts").where("session_id", "=", session.id).execute();
  } catch (err) {
    ctx.logger.warn("could not delete an upload's parts", { id: session.id, error: String(err) });
  }
  await abortMultipart(ctx, session.storage_key, session.multipart_upload_id);
  await deleteStoredKeys(ctx, sessionKeys(session));
}

/**
 * A write that finished after its session was aborted or expired: its bytes are deleted. (When the
 * session is completed or being completed they are the media file's, and stay.)
 */
export async function forgetLateWrite(ctx: EngineContext, id: string, keys: string[]): Promise<void> {
  const row = await ctx.db
    .selectFrom("upload_sessions")
    .select("state")
    .where("id", "=", id)
    .executeTakeFirst();
  if (row?.state !== "completed" && row?.state !== "completing") await deleteStoredKeys(ctx, keys);
}

/** Aborts a session's multipart upload, logging (never throwing) a failure. */
async function abortMultipart(ctx: EngineContext, key: string, uploadId: string | null): Promise<void> {
  if (uploadId === null || !ctx.storage?.multipart) return;
  try {
    await ctx.storage.multipart.abort(key, uploadId);
  } catch (err) {
    ctx.logger.warn("could not abort a multipart upload", { key, error: String(err) });
  }
}

/** The storage keys an unfinished session may have written: its file and its poster (even half-written). */
export function sessionKeys(row: Pick<UploadSessionRow, "storage_key">): string[] {
  return [row.storage_key, posterKeyOf(row.storage_key)];
}
