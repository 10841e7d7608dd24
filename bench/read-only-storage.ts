import type { Storage } from "../packages/core/src/storage.js";

/**
 * The store of the read benchmarks: media URLs need one, and nothing is read from it or written to
 * it (media rows point at nothing; an export logs and skips them).
 */
export const readOnlyStorage = {
  url: (key: string) => `/media/${key}`,
  put: () => Promise.reject(new Error("read-only benchmark")),
  get: () => Promise.resolve(null),
  head: () => Promise.resolve(null),
  delete: () => Promise.resolve(),
} satisfies Storage;
