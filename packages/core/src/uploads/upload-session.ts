import type { Kysely, Selectable } from "kysely";
import * as z from "zod";
import type { Database, UploadSessionsTable } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { conflict, notFound, validationError } from "../errors.js";
import { posterKeyOf } from "../files/storage-keys.js";
import { bytesParam } from "../shared/bytes.js";

/** A session row as read. */
export type UploadSessionRow = Selectable<UploadSessionsTable>;

/** States of a session. `expired` is written by cleanup; an open session past its time reads as expired too. */
export type UploadState = "open" | "completed" | "aborted" | "expired";

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

/** The storage keys an unfinished session may have written: its file and its poster (even half-written). */
export function sessionKeys(row: Pick<UploadSessionRow, "storage_key">): string[] {
  return [row.storage_key, posterKeyOf(row.storage_key)];
}
