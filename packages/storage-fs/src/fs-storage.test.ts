import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Storage } from "@quire/core";
import { StorageLimitError } from "@quire/core";
import { storageContract } from "@quire/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFsStorage } from "./index.js";

storageContract(
  { describe, it, expect, beforeAll, afterAll },
  {
    name: "fs",
    setup: async () => {
      const root = await mkdtemp(path.join(tmpdir(), "quire-fs-contract-"));
      return {
        storage: createFsStorage({ root, publicBaseUrl: "/media" }),
        teardown: () => rm(root, { recursive: true }),
      };
    },
  },
);

describe("createFsStorage", () => {
  let parent: string;
  let root: string;
  let storage: Storage;

  beforeEach(async () => {
    parent = await mkdtemp(path.join(tmpdir(), "quire-fs-"));
    root = path.join(parent, "root");
    storage = createFsStorage({ root, publicBaseUrl: "/media" });
  });
  afterEach(() => rm(parent, { recursive: true }));

  /** Every file under `.tmp`, so a test can show that a failed write left none behind. */
  async function tmpFiles(): Promise<string[]> {
    const entries = await readdir(path.join(root, ".tmp"), { recursive: true, withFileTypes: true }).catch(
      () => [],
    );
    return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  }

  it.each([
    "/etc/passwd",
    "../outside.txt",
    "..",
    "media/../../outside.txt",
    "media/..",
    "./media/a.jpg",
    "media/./a.jpg",
    "media//a.jpg",
    "media/",
    "",
    "media\\..\\..\\outside.txt",
    "C:\\outside.txt",
    "media/a\0.jpg",
    "media/a\n.jpg",
    ".tmp/sneaky.part",
  ])("refuses the key %j everywhere without touching the disk", async (key) => {
    const options = { contentType: "text/plain" };
    await expect(storage.put(key, new Uint8Array([1]), options)).rejects.toThrow(/invalid storage key/);
    await expect(storage.get(key)).rejects.toThrow(/invalid storage key/);
    await expect(storage.head(key)).rejects.toThrow(/invalid storage key/);
    await expect(storage.delete(key)).rejects.toThrow(/invalid storage key/);
    await expect(storage.multipart!.create(key, "text/plain")).rejects.toThrow(/invalid storage key/);
    expect(() => storage.url(key)).toThrow(/invalid storage key/);
    expect(await readdir(parent)).toEqual([]);
  });

  it("leaves no temp file after a limit error, a failing source, a complete or an abort", async () => {
    const limited = storage.put("media/a.bin", chunked(10, 100), { contentType: "x/y", maxBytes: 950 });
    await expect(limited).rejects.toBeInstanceOf(StorageLimitError);
    const failing = chunked(10, 100, new Error("client went away"));
    await expect(storage.put("media/b.bin", failing, { contentType: "x/y" })).rejects.toThrow(
      "client went away",
    );
    // A source failing after several 4 MiB batches, with a write in flight.
    const late = chunked(40, 256 * 1024, new Error("gone after 10 MiB"));
    await expect(storage.put("media/late.bin", late, { contentType: "x/y" })).rejects.toThrow(
      "gone after 10 MiB",
    );
    expect(await storage.head("media/late.bin")).toBeNull();
    const multipart = storage.multipart!;
    for (const [finish, options] of [
      ["complete", {}],
      ["abort", {}],
      ["complete", { partSize: 30 }],
      ["abort", { partSize: 30 }],
    ] as const) {
      const { uploadId } = await multipart.create("media/c.bin", "x/y", options);
      const { etag } = await multipart.uploadPart({
        key: "media/c.bin",
        uploadId,
        partNumber: 1,
        body: chunked(3, 10),
      });
      if (finish === "complete")
        await multipart.complete({ key: "media/c.bin", uploadId, parts: [{ partNumber: 1, etag }] });
      else await multipart.abort("media/c.bin", uploadId);
    }
    expect(await tmpFiles()).toEqual([]);
    expect(await readdir(path.join(root, ".tmp", "multipart"))).toEqual([]);
  });

  it("never shows a reader a half-written object", async () => {
    await storage.put("media/a.bin", new Uint8Array(1000).fill(1), { contentType: "x/y" });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const writing = storage.put("media/a.bin", chunked(20, 500, undefined, gate), { contentType: "x/y" });
    await waitFor(async () => (await tmpFiles()).length === 1);
    expect((await storage.head("media/a.bin"))?.size).toBe(1000);
    const during = await storage.get("media/a.bin");
    release();
    await writing;
    // A read that started before the rename still gets the old version, whole.
    expect(await bytes(during)).toEqual(new Uint8Array(1000).fill(1));
    expect(await bytes(await storage.get("media/a.bin"))).toEqual(new Uint8Array(10_000).fill(7));
  });

  it("joins the public base URL and the key, encoding each segment", () => {
    expect(storage.url("media/2026/11/med_01abc.jpg")).toBe("/media/media/2026/11/med_01abc.jpg");
    const cdn = createFsStorage({ root, publicBaseUrl: "https://cdn.example.com/files/" });
    expect(cdn.url("media/a b#1.jpg")).toBe("https://cdn.example.com/files/media/a%20b%231.jpg");
  });

  it("does not store the content type, and treats a folder as no object", async () => {
    await storage.put("media/2026/a.jpg", new Uint8Array(3), { contentType: "image/jpeg" });
    expect(await storage.head("media/2026/a.jpg")).toMatchObject({ size: 3, contentType: undefined });
    expect(await storage.head("media/2026")).toBeNull();
    expect(await storage.get("media/2026")).toBeNull();
    await writeFile(path.join(root, "media", "plain"), "x");
    expect(await storage.head("media/plain/child.jpg")).toBeNull();
  });

  it("with a part size, writes parts in place and completes only parts 1..N, full but the last", async () => {
    const multipart = storage.multipart!;
    const key = "media/placed.bin";
    const { uploadId } = await multipart.create(key, "x/y", { partSize: 4 });
    const send = (partNumber: number, fill: number, length: number, size?: number) =>
      multipart.uploadPart({ key, uploadId, partNumber, body: new Uint8Array(length).fill(fill), size });
    await expect(send(1, 1, 5, 5)).rejects.toThrow(/more than the part size/);
    await expect(send(1, 1, 5)).rejects.toBeInstanceOf(StorageLimitError);
    const one = await send(1, 1, 4, 4);
    const shortTwo = await send(2, 2, 3);
    const three = await send(3, 3, 2);
    const complete = (parts: { partNumber: number; etag: string }[]) =>
      multipart.complete({ key, uploadId, parts });
    await expect(
      complete([
        { partNumber: 1, etag: one.etag },
        { partNumber: 3, etag: three.etag },
      ]),
    ).rejects.toThrow(/part 2 is missing/);
    await expect(
      complete([
        { partNumber: 1, etag: one.etag },
        { partNumber: 2, etag: shortTwo.etag },
        { partNumber: 3, etag: three.etag },
      ]),
    ).rejects.toThrow(/every part but the last has 4/);
    const two = await send(2, 2, 4);
    await expect(
      complete([
        { partNumber: 1, etag: one.etag },
        { partNumber: 2, etag: shortTwo.etag },
        { partNumber: 3, etag: three.etag },
      ]),
    ).rejects.toThrow(/not found/);
    const parts = [
      { partNumber: 1, etag: one.etag },
      { partNumber: 2, etag: two.etag },
      { partNumber: 3, etag: three.etag },
    ];
    expect((await complete(parts)).size).toBe(10);
    expect(await bytes(await storage.get(key))).toEqual(Uint8Array.of(1, 1, 1, 1, 2, 2, 2, 2, 3, 3));
    expect(await readdir(path.join(root, ".tmp", "multipart"))).toEqual([]);
  });

  it("checks multipart ids, keys, part numbers and ETags", async () => {
    const multipart = storage.multipart!;
    const { uploadId } = await multipart.create("media/m.bin", "x/y");
    const part = (partNumber: number) => ({
      key: "media/m.bin",
      uploadId,
      partNumber,
      body: new Uint8Array(4),
    });
    await expect(multipart.uploadPart({ ...part(1), key: "media/other.bin" })).rejects.toThrow();
    await expect(multipart.uploadPart({ ...part(1), uploadId: "../../x" })).rejects.toThrow();
    await expect(multipart.uploadPart(part(0))).rejects.toBeInstanceOf(RangeError);
    await expect(multipart.uploadPart({ ...part(1), size: 5 })).rejects.toThrow();
    const { etag } = await multipart.uploadPart(part(1));
    const complete = (parts: { partNumber: number; etag: string }[]) =>
      multipart.complete({ key: "media/m.bin", uploadId, parts });
    await expect(complete([{ partNumber: 1, etag: `"${"0".repeat(32)}"` }])).rejects.toThrow();
    await expect(complete([])).rejects.toThrow();
    const replaced = await multipart.uploadPart({ ...part(1), body: new Uint8Array([9, 9]) });
    await expect(complete([{ partNumber: 1, etag }])).rejects.toThrow();
    expect((await complete([{ partNumber: 1, etag: replaced.etag }])).size).toBe(2);
  });
});

/** `count` chunks of `size` bytes (filled with 7), optionally failing at the end or waiting on `gate` midway. */
function chunked(
  count: number,
  size: number,
  failWith?: Error,
  gate?: Promise<void>,
): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent === count / 2 && gate) await gate;
      if (sent === count) return failWith ? controller.error(failWith) : controller.close();
      sent++;
      controller.enqueue(new Uint8Array(size).fill(7));
    },
  });
}

async function bytes(read: { body: ReadableStream<Uint8Array> } | null): Promise<Uint8Array> {
  return new Uint8Array(await new Response(read!.body).arrayBuffer());
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}
