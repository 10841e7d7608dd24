import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { MultipartStorage } from "@quire/core";
import { chunksOf } from "@quire/core";
import { syncDir, writeAtomically } from "./atomic-write.js";
import { fileInfo, isMissing } from "./file-info.js";
import { resolveKey, TMP_DIR } from "./keys.js";
import { writeChunks } from "./write-chunks.js";

const UPLOAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_PARTS = 10_000;

/**
 * Multipart uploads on a folder, so the engine has one code path for S3 and fs. Each upload is a
 * folder `root/.tmp/multipart/<uploadId>` holding its key and one entry per part, named by part
 * number and a random token; the ETag is that token, quoted as S3 does (hashing every byte only
 * to name a part would cost a core's worth of time; parts are scratch, so they are not fsynced).
 * `abort` removes the folder (a missing upload is not an error); `list` reports the uploads in
 * progress with the time of their `create`. Unlike S3 there is no minimum part size.
 *
 * Two layouts:
 * - **With a part size** (what the engine asks for): every part is written straight into one
 *   `data` file at its offset, and its entry only records its size. `complete` checks the parts
 *   (1..N, full-sized but the last), trims, fsyncs and renames that file into place: no byte is
 *   copied a second time. A part sent again overwrites its range; its old ETag is void from the
 *   moment the new body starts (sending one part twice at once is not supported).
 * - **Without**: each part is a file of its own, and `complete` streams the listed parts (in
 *   ascending order) into one atomic write.
 */
export function createFsMultipart(root: string): MultipartStorage {
  const uploadsDir = path.join(root, TMP_DIR, "multipart");

  /** The key an upload was created for; null when there is no such upload (any more). */
  async function ownerOf(key: string, uploadId: string): Promise<string | null> {
    resolveKey(root, key);
    if (!UPLOAD_ID.test(uploadId)) return null;
    return readFile(path.join(uploadsDir, uploadId, "key"), "utf8").catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
  }

  /** The folder of an upload and its part size (null: parts kept apart), after checking its key. */
  async function uploadOf(key: string, uploadId: string): Promise<{ dir: string; partSize: number | null }> {
    const owner = await ownerOf(key, uploadId);
    if (owner === null) throw new Error(`no such multipart upload ${uploadId}`);
    if (owner !== key) throw new Error(`multipart upload ${uploadId} is not for ${key}`);
    const dir = path.join(uploadsDir, uploadId);
    const partSize = await readFile(path.join(dir, "part-size"), "utf8").catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
    return { dir, partSize: partSize === null ? null : Number(partSize) };
  }

  return {
    async create(key, _contentType, options = {}) {
      resolveKey(root, key);
      const { partSize } = options;
      if (partSize !== undefined && !(Number.isSafeInteger(partSize) && partSize > 0)) {
        throw new RangeError(`part size ${partSize} is not a positive integer`);
      }
      const uploadId = randomUUID();
      const dir = path.join(uploadsDir, uploadId);
      await mkdir(dir, { recursive: true });
      if (partSize !== undefined) {
        await writeFile(path.join(dir, "data"), "", { flag: "wx" });
        await writeFile(path.join(dir, "part-size"), String(partSize));
      }
      // Written last: an upload exists once its key does.
      await writeFile(path.join(dir, "key"), key);
      return { uploadId };
    },

    async uploadPart({ key, uploadId, partNumber, body, size }) {
      if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > MAX_PARTS) {
        throw new RangeError(`part number ${partNumber} is not in 1..${MAX_PARTS}`);
      }
      const { dir, partSize } = await uploadOf(key, uploadId);
      const token = randomUUID().replace(/-/g, "");
      const entry = path.join(dir, `${partName(partNumber)}.${token}`);
      let written: number;
      if (partSize === null) {
        const stats = await writeAtomically({
          root,
          target: `${entry}.incoming`,
          source: chunksOf(body),
          maxBytes: size,
          durable: false,
        });
        written = Number(stats.size);
      } else {
        if (size !== undefined && size > partSize) {
          throw new RangeError(`part ${partNumber} has ${size} bytes, more than the part size ${partSize}`);
        }
        // The range is about to change: no earlier ETag of this part may complete the upload.
        await removeVersions(dir, partNumber);
        const handle = await open(path.join(dir, "data"), "r+");
        try {
          written = await writeChunks(handle, chunksOf(body), {
            start: (partNumber - 1) * partSize,
            maxBytes: size ?? partSize,
          });
        } finally {
          await handle.close();
        }
        await writeFile(`${entry}.incoming`, String(written));
      }
      if (size !== undefined && written !== size) {
        await rm(`${entry}.incoming`, { force: true });
        throw new Error(`part ${partNumber} has ${written} bytes, not the ${size} announced`);
      }
      await rename(`${entry}.incoming`, entry);
      await removeVersions(dir, partNumber, token);
      return { etag: `"${token}"` };
    },

    async complete({ key, uploadId, parts }) {
      const { dir, partSize } = await uploadOf(key, uploadId);
      const entries = await partEntries(dir, parts);
      const target = resolveKey(root, key);
      if (partSize === null) {
        const stats = await writeAtomically({ root, target, source: concatenate(entries) });
        await rm(dir, { recursive: true, force: true });
        return fileInfo(stats);
      }
      const size = await placedSize(parts, entries, partSize);
      const data = path.join(dir, "data");
      const handle = await open(data, "r+");
      let stats: Awaited<ReturnType<typeof handle.stat>>;
      try {
        await handle.truncate(size);
        await handle.sync();
        stats = await handle.stat({ bigint: true });
      } finally {
        await handle.close();
      }
      await mkdir(path.dirname(target), { recursive: true });
      await rename(data, target);
      await syncDir(path.dirname(target));
      await rm(dir, { recursive: true, force: true });
      return fileInfo(stats);
    },

    async abort(key, uploadId) {
      // Aborting twice, or after complete, finds nothing to remove: not an error.
      if ((await ownerOf(key, uploadId)) === null) return;
      await rm((await uploadOf(key, uploadId)).dir, { recursive: true, force: true });
    },

    async list(options = {}) {
      const limit = options.limit ?? 1000;
      const names = (await readdir(uploadsDir).catch(() => [] as string[])).filter((name) =>
        UPLOAD_ID.test(name),
      );
      const uploads = [];
      for (const uploadId of names.sort()) {
        if (uploads.length >= limit) break;
        // The key file is written once, last, at create: its time is the upload's start.
        const keyFile = path.join(uploadsDir, uploadId, "key");
        const [key, info] = await Promise.all([
          readFile(keyFile, "utf8").catch(() => null),
          stat(keyFile).catch(() => null),
        ]);
        if (key !== null && info !== null)
          uploads.push({ key, uploadId, startedAt: Math.floor(info.mtimeMs / 1000) });
      }
      return uploads;
    },
  };
}

function partName(partNumber: number): string {
  return String(partNumber).padStart(5, "0");
}

/** The entries of the listed parts, in order; throws on a gap in order, a repeat or an unknown ETag. */
async function partEntries(dir: string, parts: { partNumber: number; etag: string }[]): Promise<string[]> {
  if (parts.length === 0) throw new Error("a multipart upload needs at least one part");
  const entries: string[] = [];
  let previous = 0;
  for (const { partNumber, etag } of parts) {
    if (!Number.isInteger(partNumber) || partNumber <= previous) {
      throw new Error("parts must be listed once each, in ascending order of part number");
    }
    previous = partNumber;
    const token = etag.replace(/"/g, "");
    if (!/^[0-9a-f]{32}$/.test(token)) throw new Error(`part ${partNumber} has an invalid ETag`);
    const entry = path.join(dir, `${partName(partNumber)}.${token}`);
    if (!(await stat(entry).catch(() => null)))
      throw new Error(`part ${partNumber} with ETag ${etag} not found`);
    entries.push(entry);
  }
  return entries;
}

/** The size of a file placed by part size: parts must be 1..N, each full but the last. */
async function placedSize(
  parts: { partNumber: number }[],
  entries: string[],
  partSize: number,
): Promise<number> {
  let size = 0;
  for (const [index, entry] of entries.entries()) {
    const { partNumber } = parts[index] as { partNumber: number };
    if (partNumber !== index + 1) throw new Error(`part ${index + 1} is missing from the list`);
    const partBytes = Number(await readFile(entry, "utf8"));
    const last = index === entries.length - 1;
    if (!last && partBytes !== partSize) {
      throw new Error(`part ${partNumber} has ${partBytes} bytes; every part but the last has ${partSize}`);
    }
    size += partBytes;
  }
  return size;
}

/** Removes the entries of part `partNumber`, but for the one named by `keep` (and any in progress). */
async function removeVersions(dir: string, partNumber: number, keep?: string): Promise<void> {
  const prefix = `${partName(partNumber)}.`;
  for (const name of await readdir(dir)) {
    if (name.startsWith(prefix) && name !== `${prefix}${keep}` && !name.endsWith(".incoming")) {
      await rm(path.join(dir, name), { force: true });
    }
  }
}

async function* concatenate(files: string[]): AsyncGenerator<Uint8Array, void, undefined> {
  for (const file of files) {
    for await (const chunk of createReadStream(file)) yield chunk as Uint8Array;
  }
}
