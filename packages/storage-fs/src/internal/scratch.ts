import type { Dirent } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { isMissing } from "./file-info.js";
import { TMP_DIR } from "./keys.js";

/**
 * Removes what writes that never finished left in `root/.tmp` when last written before `before`
 * (Unix seconds): temp files of atomic writes (`*.part`; a live write touches its file at least
 * every 1 MiB), and multipart folders that never got their `key` (a crash inside `create`).
 * Multipart uploads proper are left to their owner, which lists and aborts them. Returns how many
 * it removed.
 */
export async function purgeScratch(root: string, before: number): Promise<number> {
  const tmpDir = path.join(root, TMP_DIR);
  let purged = 0;
  for (const entry of await entriesOf(tmpDir)) {
    const file = path.join(tmpDir, entry.name);
    if (entry.isFile() && entry.name.endsWith(".part") && (await writtenBefore(file, before))) {
      await rm(file, { force: true });
      purged++;
    }
  }
  const uploadsDir = path.join(tmpDir, "multipart");
  for (const entry of await entriesOf(uploadsDir)) {
    const dir = path.join(uploadsDir, entry.name);
    if (!entry.isDirectory() || (await stat(path.join(dir, "key")).catch(() => null))) continue;
    if (await writtenBefore(dir, before)) {
      await rm(dir, { recursive: true, force: true });
      purged++;
    }
  }
  return purged;
}

async function entriesOf(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

async function writtenBefore(file: string, before: number): Promise<boolean> {
  const info = await stat(file).catch((error: unknown) => {
    if (isMissing(error)) return null;
    throw error;
  });
  return info !== null && info.mtimeMs / 1000 < before;
}
