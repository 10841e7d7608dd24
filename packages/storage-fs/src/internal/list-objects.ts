import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { ListedObject, ListOptions } from "@quire/core";
import { isMissing } from "./file-info.js";
import { TMP_DIR } from "./keys.js";

/**
 * The files under `root` whose keys start with `prefix`, in key order (what S3 gives), after
 * `after`, at most `limit`. Folders are walked depth first with their entries sorted as the keys
 * they lead to (`a/` for a folder), so the walk meets keys in order and stops once it has enough;
 * folders whose keys all sort before `after` are skipped unread. `.tmp` is never listed.
 */
export async function listObjects(
  root: string,
  prefix: string,
  options: ListOptions = {},
): Promise<ListedObject[]> {
  const limit = options.limit ?? 1000;
  const after = options.after ?? "";
  const found: ListedObject[] = [];
  if (limit <= 0) return found;
  // Start in the deepest folder the prefix names; the rest of it filters that folder's entries.
  const slash = prefix.lastIndexOf("/");
  const folder = prefix.slice(0, slash + 1);
  await walk(root, folder, { prefix, after, limit, found });
  return found;
}

interface Walk {
  prefix: string;
  after: string;
  limit: number;
  found: ListedObject[];
}

/** Visits the folder whose keys start with `folder` (`""` for the root, else ending in `/`). */
async function walk(root: string, folder: string, state: Walk): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(path.join(root, ...folder.split("/").filter(Boolean)), { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  const named = entries
    .filter((entry) => !(folder === "" && entry.name === TMP_DIR))
    .map((entry) => ({ entry, key: `${folder}${entry.name}${entry.isDirectory() ? "/" : ""}` }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const { entry, key } of named) {
    if (state.found.length >= state.limit) return;
    // Entries must match the prefix, or (for folders) lead to keys that can.
    if (!(key.startsWith(state.prefix) || state.prefix.startsWith(key))) continue;
    if (entry.isDirectory()) {
      // Every key in the folder starts with `key`: skip it when they all sort before `after`.
      if (key < state.after && !state.after.startsWith(key)) continue;
      await walk(root, key, state);
    } else if (entry.isFile() && key > state.after && key.startsWith(state.prefix)) {
      const info = await stat(path.join(root, ...key.split("/")), { bigint: true }).catch(
        (error: unknown) => {
          if (isMissing(error)) return null;
          throw error;
        },
      );
      if (info?.isFile()) {
        state.found.push({ key, size: Number(info.size), modifiedAt: Number(info.mtimeNs / 1_000_000_000n) });
      }
    }
  }
}
