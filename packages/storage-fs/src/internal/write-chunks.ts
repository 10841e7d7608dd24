import type { FileHandle } from "node:fs/promises";
import { StorageLimitError } from "@quire/core";

/**
 * Bytes gathered before they go to the file in one `writev`. While one batch is being written the
 * next one gathers, so reading from the source and writing to the disk overlap; at most two
 * batches (and the source's own buffer) are held at once. Larger batches were no faster on the
 * reference machine, and chunks held longer outlive more garbage collections (4 MiB batches
 * raised peak RSS growth by about 15 MiB).
 */
const batchBytes = 1024 * 1024;

/**
 * Every this many bytes a `datasync` starts in the background (one at a time), so the disk writes
 * while the rest still arrives. Left to itself the kernel holds a whole upload in the page cache
 * and writes it all at the final fsync, after the transfer: on the reference machine that wait was
 * a quarter of a 1 GiB relay. Small steps keep the last one short, which a 50 MiB multipart part
 * waits for before it answers (8 MiB beat 32 MiB there, and relay did not mind).
 */
const flushBytes = 8 * 1024 * 1024;

/** Where {@link writeChunks} writes and what it accepts. */
export interface WriteChunksOptions {
  /** File offset of the first byte (default 0). */
  start?: number;
  /** More bytes than this throw a StorageLimitError before they are written. */
  maxBytes?: number | undefined;
}

/**
 * Writes a source into an open file from `start`, in batches with one write in flight, starting
 * the disk's writeback as it goes, and resolves with the number of bytes written (the caller
 * fsyncs when it needs durability). On failure (the source's, the limit's or the disk's) it waits
 * for the write and the flush in flight to settle, then rejects: the caller may close the file at
 * once.
 */
export async function writeChunks(
  handle: FileHandle,
  source: AsyncIterable<Uint8Array>,
  options: WriteChunksOptions = {},
): Promise<number> {
  const start = options.start ?? 0;
  let queued = 0;
  let batch: Uint8Array[] = [];
  let batchSize = 0;
  let writing: Promise<unknown> = Promise.resolve();
  // Never rejects: a failed flush is kept in `syncError` (a later fsync on Linux may not report it again).
  let syncing: Promise<void> | undefined;
  let syncError: unknown;
  let syncedUpTo = 0;
  const flush = async () => {
    await writing;
    if (syncError) throw syncError;
    if (!syncing && queued - syncedUpTo >= flushBytes) {
      syncedUpTo = queued;
      syncing = handle.datasync().then(
        () => {
          syncing = undefined;
        },
        (error: unknown) => {
          syncError ??= error;
          syncing = undefined;
        },
      );
    }
    const buffers = batch;
    const position = start + queued;
    queued += batchSize;
    batch = [];
    batchSize = 0;
    writing = handle.writev(buffers, position);
    // Seen by the next flush or the final wait; until then a failure must not count as unhandled.
    writing.catch(() => {});
  };
  try {
    for await (const chunk of source) {
      if (options.maxBytes !== undefined && queued + batchSize + chunk.byteLength > options.maxBytes) {
        throw new StorageLimitError(options.maxBytes);
      }
      batch.push(chunk);
      batchSize += chunk.byteLength;
      if (batchSize >= batchBytes) await flush();
    }
    if (batchSize > 0) await flush();
  } catch (error) {
    await Promise.allSettled([writing, syncing]);
    throw error;
  }
  await writing;
  await syncing;
  if (syncError) throw syncError;
  return queued;
}
