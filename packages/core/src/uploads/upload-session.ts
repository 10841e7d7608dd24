import type { Kysely, Selectable } from "kysely";
import * as z from "zod";
import type { Database, UploadSessionsTable } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { conflict, notFound, validationError } from "../errors.js";
import { posterKeyOf } from "../files/storage-keys.js";
import { deleteStoredKeys } from "../files/stored-objects.js";
import { bytesParam } from "../shared/bytes.js";

/** A session row as read. */
export type UploadSessionRow = Selectable<UploadSessionsTable>;

/** States of a session. `expired` is written by cleanup; an open session past its time reads as expired too. */
export type UploadState = "open" | "completed" | "aborted" | "expired";

/**
 * The state changes a session may make. A session leaves `open` once, to whichever request (or
 * cleanup) claims it first; a completion that fails after its claim ends `aborted`.
 * @see spec § Upload session
 */
const transitions: Record<UploadState, readonly UploadState[]> = {
  open: ["completed", "aborted", "expired"],
  completed: ["aborted"],
  aborted: [],
  expired: [],
};

/** How long a session stays open without activity. @see spec § Limits (upload session lifetime) */
export const sessionLifetimeSeconds = 15 * 60;

/** How long a finished (completed, aborted, expired) session row is kept before cleanup removes it. */
export const finishedRetentionSeconds = 24 * 60 * 60;

/** The bytes of a request: a Web stream, any async iterable of byte chunks, or bytes; absent is empty. */
export const bodyParam = bytesParam.optional().transform((value) => value ?? new Uint8Array(0));

/** The request's declared `Content-Length`, when the transport knows it. */
export const contentLengthParam = z.number().int().min(0).optional();

/**
 * The session, if the client may still write to or finish it: 404 when unknown, 409 when completed
 * or aborted, 400 when expired. @see spec § Upload session
 */
export async function findOpenSession(ctx: EngineContext, id: string): Promise<UploadSessionRow> {
  const row = await ctx.db.selectFrom("upload_sessions").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw notFound("upload session", id);
  if (row.state === "completed") throw conflict(`Upload ${id} is already completed`);
  if (row.state === "aborted") throw conflict(`Upload ${id} was aborted`);
  if (row.state === "expired" || ctx.clock.now() >= Number(row.expires_at)) {
    throw validationError(`Upload ${id} has expired; start a new upload`);
  }
  return row;
}

/**
 * Records activity on an open session, which keeps it open for another lifetime. A write that
 * began while the session was open counts even when it ends past the lifetime, unless cleanup or
 * another request closed the session meanwhile: then this answers false.
 */
export async function touchSession(
  db: Kysely<Database>,
  input: { id: string; now: number; changes?: { received_size?: number | null; poster_key?: string } },
): Promise<boolean> {
  const result = await db
    .updateTable("upload_sessions")
    .set({ ...input.changes, updated_at: input.now, expires_at: input.now + sessionLifetimeSeconds })
    .where("id", "=", input.id)
    .where("state", "=", "open")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Throws what a request to a session that is no longer open gets: 409, 400 (expired) or 404. */
export async function throwClosed(ctx: EngineContext, id: string): Promise<never> {
  await findOpenSession(ctx, id);
  throw conflict(`Upload ${id} is no longer open`);
}

/**
 * Claims an open session for completion (only within its lifetime) or abortion. When another
 * request or cleanup claimed it first, throws as the session now stands: 409, 400 (expired) or 404.
 */
export async function closeSession(
  ctx: EngineContext,
  input: { id: string; to: "completed" | "aborted" },
): Promise<void> {
  const now = ctx.clock.now();
  const live = input.to === "completed" ? "live" : undefined;
  if (!(await moveSession(ctx.db, { id: input.id, from: "open", to: input.to, now, expiry: live }))) {
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

/** A completion that failed after its claim: the session ends `aborted` (a failure to say so is logged). */
export async function abandonCompletion(ctx: EngineContext, id: string): Promise<void> {
  try {
    await moveSession(ctx.db, { id, from: "completed", to: "aborted", now: ctx.clock.now() });
  } catch (err) {
    ctx.logger.warn("could not mark an upload aborted", { id, error: String(err) });
  }
}

/**
 * Moves a session `from` → `to` in one conditional UPDATE (`WHERE state = from`, and with `expiry`
 * before or past `expires_at`): true when this call made the change, false when the session had
 * already left `from`.
 */
async function moveSession(
  db: Kysely<Database>,
  input: {
    id: string;
    from: UploadState;
    to: UploadState;
    now: number;
    expiry?: "live" | "past" | undefined;
  },
): Promise<boolean> {
  if (!transitions[input.from].includes(input.to)) {
    throw new Error(`An upload session cannot go from ${input.from} to ${input.to}`);
  }
  let update = db
    .updateTable("upload_sessions")
    .set({ state: input.to, updated_at: input.now })
    .where("id", "=", input.id)
    .where("state", "=", input.from);
  if (input.expiry === "live") update = update.where("expires_at", ">", input.now);
  if (input.expiry === "past") update = update.where("expires_at", "<=", input.now);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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
 * A write that finished after its session was aborted or expired: its bytes are deleted. (After a
 * completion they are the media file's, and stay.)
 */
export async function forgetLateWrite(ctx: EngineContext, id: string, keys: string[]): Promise<void> {
  const row = await ctx.db
    .selectFrom("upload_sessions")
    .select("state")
    .where("id", "=", id)
    .executeTakeFirst();
  if (row?.state !== "completed") await deleteStoredKeys(ctx, keys);
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
