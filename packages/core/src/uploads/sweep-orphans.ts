import type { EngineContext } from "../deps.js";
import { storedKeysOf } from "../files/media-rows.js";
import { deleteStoredKeys } from "../files/stored-objects.js";
import type { ListedObject, Storage } from "../storage.js";
import { finishedRetentionSeconds } from "./upload-session.js";

/** Files and scratch younger than this are never orphans: their writer may be about to record them. */
export const orphanGraceSeconds = 60 * 60;

/**
 * Multipart uploads no open session owns get this long from their start before they are aborted:
 * a store may use them for a long streamed write of its own.
 */
const strayUploadGraceSeconds = finishedRetentionSeconds;

/** The key spaces the engine writes files under, walked in this order. @see docs/media.md § Storage keys */
const sweptPrefixes = ["attachments/", "media/"] as const;

/** The walk's place in `maintenance_cursors`. */
const cursorName = "uploads.sweep";

/**
 * Deletes what crashes leave in the store, a bounded share per run: the store's own stale scratch
 * (`purgeScratch`), multipart uploads no open session owns (`multipart.list`), and files under
 * `attachments/` and `media/` that no media record and no open session owns (`list`) — a one-shot
 * upload or a post whose process died before its row was written. Nothing younger than
 * {@link orphanGraceSeconds} is touched. Looks at up to `objects` files, resuming where the last
 * run stopped. Returns how many things it removed; failures are logged, never thrown.
 * @see docs/media.md § Cleanup
 */
export async function sweepOrphans(
  ctx: EngineContext,
  input: { now: number; objects: number },
): Promise<number> {
  const { storage } = ctx;
  if (!storage) return 0;
  const steps = [
    () => purgeScratch(storage, input.now),
    () => abortStrayUploads(ctx, storage, input.now),
    () => sweepObjects(ctx, storage, input),
  ];
  let swept = 0;
  for (const step of steps) {
    try {
      swept += await step();
    } catch (err) {
      ctx.logger.warn("upload cleanup could not sweep the store", { error: String(err) });
    }
  }
  return swept;
}

async function purgeScratch(storage: Storage, now: number): Promise<number> {
  return (await storage.purgeScratch?.(now - orphanGraceSeconds)) ?? 0;
}

async function abortStrayUploads(ctx: EngineContext, storage: Storage, now: number): Promise<number> {
  const multipart = storage.multipart;
  if (!multipart?.list) return 0;
  const stale = (await multipart.list()).filter(
    (upload) => upload.startedAt <= now - strayUploadGraceSeconds,
  );
  if (stale.length === 0) return 0;
  const owned = await ctx.db
    .selectFrom("upload_sessions")
    .select("multipart_upload_id")
    .where(
      "multipart_upload_id",
      "in",
      stale.map((upload) => upload.uploadId),
    )
    .where("state", "in", ["open", "completing"])
    .execute();
  const ownedIds = new Set(owned.map((row) => row.multipart_upload_id));
  let aborted = 0;
  for (const upload of stale) {
    if (ownedIds.has(upload.uploadId)) continue;
    await multipart.abort(upload.key, upload.uploadId);
    aborted++;
  }
  return aborted;
}

/** Walks the swept key spaces from the saved place, looking at up to `objects` files. */
async function sweepObjects(
  ctx: EngineContext,
  storage: Storage,
  input: { now: number; objects: number },
): Promise<number> {
  if (!storage.list || input.objects <= 0) return 0;
  let position = await readCursor(ctx);
  let index = Math.max(
    0,
    sweptPrefixes.findIndex((prefix) => position.startsWith(prefix)),
  );
  let looked = 0;
  let swept = 0;
  while (looked < input.objects) {
    const prefix = sweptPrefixes[index] as string;
    const limit = input.objects - looked;
    const after = position.startsWith(prefix) ? position : undefined;
    const page = await storage.list(prefix, { after, limit });
    looked += page.length;
    swept += await deleteOrphans(ctx, page, input.now);
    if (page.length === limit) {
      position = (page[page.length - 1] as ListedObject).key;
      continue;
    }
    // This key space is done: on to the next, or (after the last) the next run starts over.
    position = "";
    index++;
    if (index === sweptPrefixes.length) break;
  }
  await saveCursor(ctx, position, input.now);
  return swept;
}

/**
 * Deletes the listed files past the grace period that no media record lists and no open (or
 * completing) upload session is writing. Sessions are read before records: a completion commits
 * its record and its `completed` state together, so a file it owns is seen as one or the other.
 */
async function deleteOrphans(ctx: EngineContext, page: ListedObject[], now: number): Promise<number> {
  const candidates = page.flatMap((object) => {
    const mediaId = object.modifiedAt <= now - orphanGraceSeconds ? mediaIdOf(object.key) : null;
    return mediaId === null ? [] : [{ key: object.key, mediaId }];
  });
  if (candidates.length === 0) return 0;
  const ids = [...new Set(candidates.map((candidate) => candidate.mediaId))];
  const writing = await ctx.db
    .selectFrom("upload_sessions")
    .select("media_id")
    .where("media_id", "in", ids)
    .where("state", "in", ["open", "completing"])
    .execute();
  const rows = await ctx.db
    .selectFrom("media")
    .select(["storage_key", "poster_key", "preview_key"])
    .where("id", "in", ids)
    .execute();
  const live = new Set(writing.map((row) => row.media_id));
  const owned = new Set(rows.flatMap(storedKeysOf));
  const orphans = candidates
    .filter((candidate) => !live.has(candidate.mediaId) && !owned.has(candidate.key))
    .map((candidate) => candidate.key);
  await deleteStoredKeys(ctx, orphans);
  return orphans.length;
}

/** The media ID a key belongs to: `attachments/<med_id>.md` or `media/<yyyy>/<mm>/<med_id>/<file>`; null for any other key. */
function mediaIdOf(key: string): string | null {
  const match =
    /^attachments\/(med_[0-9a-z]{1,64})\.md$/.exec(key) ??
    /^media\/\d{4}\/\d{2}\/(med_[0-9a-z]{1,64})\/[^/]+$/.exec(key);
  return match?.[1] ?? null;
}

async function readCursor(ctx: EngineContext): Promise<string> {
  const row = await ctx.db
    .selectFrom("maintenance_cursors")
    .select("position")
    .where("name", "=", cursorName)
    .executeTakeFirst();
  return row?.position ?? "";
}

async function saveCursor(ctx: EngineContext, position: string, now: number): Promise<void> {
  await ctx.db
    .insertInto("maintenance_cursors")
    .values({ name: cursorName, position, updated_at: now })
    .onConflict((oc) => oc.column("name").doUpdateSet({ position, updated_at: now }))
    .execute();
}
