import type { BigIntStats } from "node:fs";
import type { ByteRange, StoredObject } from "@quire/core";

/** What the folder knows about a file: its size and a strong ETag (inode, size, mtime in ns). */
export function fileInfo(stats: BigIntStats): StoredObject {
  const tag = [stats.ino, stats.size, stats.mtimeNs].map((n) => n.toString(36)).join("-");
  return { size: Number(stats.size), contentType: undefined, etag: `"${tag}"` };
}

/**
 * Checks a requested range against an object's size: `end` past the last byte is clamped to it;
 * a negative or fractional bound, `start > end`, or `start` at or past the size is a RangeError.
 */
export function clampRange(range: ByteRange, size: number): ByteRange {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || start > end) {
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
  if (start >= size) throw new RangeError(`byte range ${start}-${end} starts past the size ${size}`);
  return { start, end: Math.min(end, size - 1) };
}

/** True for the errors that mean "there is no file at that path". */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
