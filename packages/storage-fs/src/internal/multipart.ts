import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { MultipartStorage } from "@quire/core";
import { chunksOf } from "@quire/core";
import { writeAtomically } from "./atomic-write.js";
import { fileInfo, isMissing } from "./file-info.js";
import { resolveKey, TMP_DIR } from "./keys.js";

const UPLOAD_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_PARTS = 10_000;

/**
 * Multipart uploads on a folder, so the engine has one code path for S3 and fs. Each upload is a
 * folder `root/.tmp/multipart/<uploadId>` holding its key and one file per part, named by part
 * number and a random token; the ETag is that token, quoted as S3 does (hashing every byte only
 * to name a part would cost a core's worth of time; parts are scratch, so they are not fsynced). `complete` streams the listed parts (in
 * ascending order) into one atomic write and removes the folder; `abort` removes it (a missing
 * upload is not an error). Unlike S3 there is no minimum part size.
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

  /** The folder of an upload, after checking that it exists and belongs to `key`. */
  async function uploadDir(key: string, uploadId: string): Promise<string> {
    const owner = await ownerOf(key, uploadId);
    if (owner === null) throw new Error(`no such multipart upload ${uploadId}`);
    if (owner !== key) throw new Error(`multipart upload ${uploadId} is not for ${key}`);
    return path.join(uploadsDir, uploadId);
  }

  return {
    async create(key) {
      resolveKey(root, key);
      const uploadId = randomUUID();
      const dir = path.join(uploadsDir, uploadId);
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, "key"), key);
      return { uploadId };
    },

    async uploadPart({ key, uploadId, partNumber, body, size }) {
      if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > MAX_PARTS) {
        throw new RangeError(`part number ${partNumber} is not in 1..${MAX_PARTS}`);
      }
      const dir = await uploadDir(key, uploadId);
      const token = randomUUID().replace(/-/g, "");
      const tmpTarget = path.join(dir, `${partName(partNumber)}.${token}.incoming`);
      const { size: written } = await writeAtomically({
        root,
        target: tmpTarget,
        source: chunksOf(body),
        maxBytes: size,
        durable: false,
      });
      if (size !== undefined && Number(written) !== size) {
        await rm(tmpTarget, { force: true });
        throw new Error(`part ${partNumber} has ${written} bytes, not the ${size} announced`);
      }
      await rename(tmpTarget, path.join(dir, `${partName(partNumber)}.${token}`));
      await removeOtherVersions(dir, partNumber, token);
      return { etag: `"${token}"` };
    },

    async complete({ key, uploadId, parts }) {
      const dir = await uploadDir(key, uploadId);
      const files = await partFiles(dir, parts);
      const target = resolveKey(root, key);
      const stats = await writeAtomically({ root, target, source: concatenate(files) });
      await rm(dir, { recursive: true, force: true });
      return fileInfo(stats);
    },

    async abort(key, uploadId) {
      // Aborting twice, or after complete, finds nothing to remove: not an error.
      if ((await ownerOf(key, uploadId)) === null) return;
      await rm(await uploadDir(key, uploadId), { recursive: true, force: true });
    },
  };
}

function partName(partNumber: number): string {
  return String(partNumber).padStart(5, "0");
}

/** The files of the listed parts, in order; throws on a gap in order, a repeat or an unknown ETag. */
async function partFiles(dir: string, parts: { partNumber: number; etag: string }[]): Promise<string[]> {
  if (parts.length === 0) throw new Error("a multipart upload needs at least one part");
  const files: string[] = [];
  let previous = 0;
  for (const { partNumber, etag } of parts) {
    if (!Number.isInteger(partNumber) || partNumber <= previous) {
      throw new Error("parts must be listed once each, in ascending order of part number");
    }
    previous = partNumber;
    const token = etag.replace(/"/g, "");
    if (!/^[0-9a-f]{32}$/.test(token)) throw new Error(`part ${partNumber} has an invalid ETag`);
    const file = path.join(dir, `${partName(partNumber)}.${token}`);
    if (!(await stat(file).catch(() => null)))
      throw new Error(`part ${partNumber} with ETag ${etag} not found`);
    files.push(file);
  }
  return files;
}

/** A re-uploaded part replaces the earlier one with the same number. */
async function removeOtherVersions(dir: string, partNumber: number, token: string): Promise<void> {
  const prefix = `${partName(partNumber)}.`;
  const keep = `${prefix}${token}`;
  for (const name of await readdir(dir)) {
    if (name.startsWith(prefix) && name !== keep && !name.endsWith(".incoming")) {
      await rm(path.join(dir, name), { force: true });
    }
  }
}

async function* concatenate(files: string[]): AsyncGenerator<Uint8Array, void, undefined> {
  for (const file of files) {
    for await (const chunk of createReadStream(file)) yield chunk as Uint8Array;
  }
}
