import type { Storage, StorageRead } from "@quire/core";

/** Where a build reads the bytes of a file a page links to. */
export interface MediaSource {
  /** The storage key behind a public file address, when this store made that address. */
  keyOf(url: string): string | undefined;
  get(key: string): Promise<StorageRead | null>;
}

/**
 * Wraps the storage an engine is created with, remembering which key each public address it
 * hands out stands for. The engine's answers carry only addresses (`attachments[].url`); a build
 * that copies media files needs the keys to read their bytes back, and this is the one place that
 * sees both. Pass the result to `createEngine({ storage })` and to `buildSite({ media })`.
 */
export function trackStorage(storage: Storage): Storage & MediaSource {
  const keys = new Map<string, string>();
  return {
    put: storage.put.bind(storage),
    get: storage.get.bind(storage),
    head: storage.head.bind(storage),
    delete: storage.delete.bind(storage),
    ...(storage.presignPut ? { presignPut: storage.presignPut.bind(storage) } : {}),
    ...(storage.multipart ? { multipart: storage.multipart } : {}),
    ...(storage.list ? { list: storage.list.bind(storage) } : {}),
    ...(storage.purgeScratch ? { purgeScratch: storage.purgeScratch.bind(storage) } : {}),
    url(key) {
      const url = storage.url(key);
      keys.set(url, key);
      return url;
    },
    keyOf: (url) => keys.get(url),
  };
}
