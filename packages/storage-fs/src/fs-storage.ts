import { open, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import type { ByteRange, Storage, StorageRead, StoredObject } from "@quire/core";
import { chunksOf } from "@quire/core";
import { writeAtomically } from "./internal/atomic-write.js";
import { clampRange, fileInfo, isMissing } from "./internal/file-info.js";
import { assertKey, resolveKey } from "./internal/keys.js";
import { listObjects } from "./internal/list-objects.js";
import { createFsMultipart } from "./internal/multipart.js";
import { purgeScratch } from "./internal/scratch.js";

/** Options for {@link createFsStorage}. */
export interface FsStorageOptions {
  /** The folder that holds the objects; created on first write. Temp files live in `root/.tmp`. */
  root: string;
  /** Where the folder is served: a site path such as `/media` or an absolute URL. */
  publicBaseUrl: string;
}

/**
 * Storage on a local folder. Writes stream to `root/.tmp` in 1 MiB batches (one in flight, disk
 * writeback started as they go), are fsynced and renamed into place; ranges read only the
 * requested bytes. `contentType` and `contentDisposition` are not stored (no sidecar files): `head`
 * and `get` leave the type undefined, the engine keeps it with its own records, and the file
 * handler derives both headers from the key. A range that starts at or past the size (or is
 * otherwise invalid) rejects with a RangeError; an `end` past the size is clamped. Multipart
 * uploads live in `root/.tmp/multipart`, their parts written in place when a part size is given.
 * Keys that are absolute, contain `..`, backslashes or control characters, or start with `.tmp`
 * throw. `list` walks the folder in key order; `purgeScratch` removes temp files of writes that
 * never finished (a process killed mid-upload), and `multipart.list` reports the uploads in
 * `.tmp/multipart`, so the engine's cleanup can sweep both.
 */
export function createFsStorage(options: FsStorageOptions): Storage {
  const root = path.resolve(options.root);
  const baseUrl = options.publicBaseUrl.replace(/\/+$/, "");

  async function statObject(key: string): Promise<StoredObject | null> {
    try {
      const stats = await stat(resolveKey(root, key), { bigint: true });
      return stats.isFile() ? fileInfo(stats) : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  return {
    async put(key, body, { maxBytes }) {
      const target = resolveKey(root, key);
      return fileInfo(await writeAtomically({ root, target, source: chunksOf(body), maxBytes }));
    },

    get: async (key, range) => readObject(resolveKey(root, key), range),

    head: statObject,

    async delete(key) {
      await rm(resolveKey(root, key), { force: true }).catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      });
    },

    url(key) {
      assertKey(key);
      return `${baseUrl}/${key.split("/").map(encodeURIComponent).join("/")}`;
    },

    list: (prefix, listOptions) => listObjects(root, prefix, listOptions),

    purgeScratch: (before) => purgeScratch(root, before),

    multipart: createFsMultipart(root),
  };
}

/** Opens the file once, so the size, the range check and the bytes all come from one version. */
async function readObject(file: string, range?: ByteRange): Promise<StorageRead | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile()) {
      await handle.close();
      return null;
    }
    const info = fileInfo(stats);
    const returned = range ? clampRange(range, info.size) : undefined;
    const stream = handle.createReadStream(returned ?? {});
    const body = Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
    return returned ? { ...info, body, range: returned } : { ...info, body };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}
