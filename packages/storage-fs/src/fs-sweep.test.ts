import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Storage } from "@quire/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStorage } from "./index.js";

/** What cleanup needs from the folder: keys in S3's order, and the leftovers of killed writes. */
describe("createFsStorage for the engine's orphan sweep", () => {
  let root: string;
  let storage: Storage;
  const now = () => Math.floor(Date.now() / 1000);

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), "quire-fs-sweep-"));
    storage = createFsStorage({ root, publicBaseUrl: "/media" });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const put = (key: string) =>
    storage.put(key, new Uint8Array(3), { contentType: "application/octet-stream" });

  it("lists keys in byte order across folders ('a-b' before 'a/'), never .tmp, skipping folders before `after`", async () => {
    for (const key of ["a/2.bin", "a-b.bin", "a/1.bin", "b.bin", "a/c/3.bin"]) await put(key);
    await mkdir(path.join(root, ".tmp"), { recursive: true });
    await writeFile(path.join(root, ".tmp", "x.part"), "x");
    const keysOf = async (prefix: string, options?: { after?: string; limit?: number }) =>
      (await storage.list?.(prefix, options))?.map((object) => object.key);
    expect(await keysOf("")).toEqual(["a-b.bin", "a/1.bin", "a/2.bin", "a/c/3.bin", "b.bin"]);
    expect(await keysOf("a")).toEqual(["a-b.bin", "a/1.bin", "a/2.bin", "a/c/3.bin"]);
    expect(await keysOf("a/", { after: "a/2.bin" })).toEqual(["a/c/3.bin"]);
    expect(await keysOf("", { after: "a/c/3.bin", limit: 5 })).toEqual(["b.bin"]);
    expect(await keysOf("", { after: "a/", limit: 2 })).toEqual(["a/1.bin", "a/2.bin"]);
  });

  it("purges temp files of writes that stopped before the cutoff, and keyless multipart folders", async () => {
    const tmp = path.join(root, ".tmp");
    await mkdir(path.join(tmp, "multipart", "0f0e0d0c-0b0a-4000-8000-000000000001"), { recursive: true });
    await writeFile(path.join(tmp, "old.part"), "killed mid-write");
    await writeFile(path.join(tmp, "new.part"), "still arriving");
    const hourAgo = new Date((now() - 3600) * 1000);
    await utimes(path.join(tmp, "old.part"), hourAgo, hourAgo);
    await utimes(path.join(tmp, "multipart", "0f0e0d0c-0b0a-4000-8000-000000000001"), hourAgo, hourAgo);
    // A multipart upload that has its key is its owner's to abort, however old.
    const live = await storage.multipart?.create("media/x.bin", "application/octet-stream", { partSize: 8 });
    const liveDir = path.join(tmp, "multipart", live?.uploadId as string);
    await utimes(liveDir, hourAgo, hourAgo);

    expect(await storage.purgeScratch?.(now() - 60)).toBe(2);
    expect((await readdir(tmp)).sort()).toEqual(["multipart", "new.part"]);
    expect(await readdir(path.join(tmp, "multipart"))).toEqual([live?.uploadId]);
    expect(await storage.purgeScratch?.(now() - 60)).toBe(0);
    expect((await storage.multipart?.list?.())?.map((upload) => upload.key)).toEqual(["media/x.bin"]);
  });
});
