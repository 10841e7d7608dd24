import { randomUUID } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { mkdir, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { TMP_DIR } from "./keys.js";
import { writeChunks } from "./write-chunks.js";

/** Where a write goes and what it may contain. */
export interface AtomicWrite {
  root: string;
  target: string;
  source: AsyncIterable<Uint8Array>;
  maxBytes?: number | undefined;
  /** False for scratch files (multipart parts): skips the fsyncs; still atomic. Default true. */
  durable?: boolean;
}

/**
 * Streams `source` to a temp file under `root/.tmp`, fsyncs it and renames it onto `target`, so a
 * reader sees the old object or the new one, never a part. On any failure the temp file is removed.
 * Resolves with the stats of the file as written (a rename keeps them).
 */
export async function writeAtomically(write: AtomicWrite): Promise<BigIntStats> {
  const tmpDir = path.join(write.root, TMP_DIR);
  await Promise.all([
    mkdir(tmpDir, { recursive: true }),
    mkdir(path.dirname(write.target), { recursive: true }),
  ]);
  const tmp = path.join(tmpDir, `${randomUUID()}.part`);
  const handle = await open(tmp, "wx");
  let closed = false;
  try {
    await writeChunks(handle, write.source, write);
    if (write.durable !== false) await handle.sync();
    const stats = await handle.stat({ bigint: true });
    await handle.close();
    closed = true;
    await rename(tmp, write.target);
    if (write.durable !== false) await syncDir(path.dirname(write.target));
    return stats;
  } catch (error) {
    if (!closed) await handle.close().catch(() => {});
    await rm(tmp, { force: true });
    throw error;
  }
}

/** Makes a rename durable where the platform allows fsync on a folder (not on Windows). */
export async function syncDir(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
