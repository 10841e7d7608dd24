import type { Storage } from "../storage.js";
import { StorageLimitError } from "../storage.js";

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The test functions the contract suite is declared with: vitest's `{ describe, it, expect,
 * beforeAll, afterAll }`, or any runner's of the same shape, so core does not depend on one.
 */
export interface ContractTestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: (context: { skip(): void }) => Promise<void> | void): void;
  beforeAll(hook: () => Promise<void>): void;
  afterAll(hook: () => Promise<void>): void;
  expect(actual: unknown, message?: string): ContractAssertion;
}

/** The assertions the contract suite makes. */
export interface ContractAssertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeNull(): void;
  toBeUndefined(): void;
  readonly not: { toBe(expected: unknown): void };
  readonly rejects: {
    toBeInstanceOf(type: abstract new (...args: never[]) => unknown): Promise<void>;
    toMatchObject(expected: object): Promise<void>;
    toThrow(): Promise<void>;
  };
}

/**
 * Declares a suite that holds a {@link Storage} adapter to the whole interface: puts from
 * bytes and streams, whole and ranged reads (an `end` past the size is clamped; a `start` at or
 * past the size rejects with a RangeError), head, idempotent delete, overwrite, `maxBytes`, url,
 * and — where the adapter has them — a real presigned PUT, multipart uploads and listing.
 *
 * @example storageContract({ describe, it, expect, beforeAll, afterAll }, { name: "fs", setup })
 */
export function storageContract(
  test: ContractTestApi,
  suite: { name: string; setup: () => Promise<{ storage: Storage; teardown?: () => Promise<void> }> },
): void {
  const { describe, it, beforeAll, afterAll, expect } = test;
  const { name, setup } = suite;

  /** Stores that keep the content type must keep the right one; others may leave it undefined. */
  const expectTypeIfKept = (actual: string | undefined, expected: string): void => {
    if (actual !== undefined) expect(actual).toBe(expected);
  };

  /** Compares without a byte-by-byte diff, which would be unreadable (and slow) for megabytes. */
  const expectSameBytes = (actual: Uint8Array, expected: Uint8Array): void => {
    expect(actual.byteLength).toBe(expected.byteLength);
    let firstDifference = -1;
    for (let i = 0; i < actual.byteLength && firstDifference < 0; i++) {
      if (actual[i] !== expected[i]) firstDifference = i;
    }
    expect(firstDifference, "index of the first differing byte").toBe(-1);
  };

  describe(`Storage contract: ${name}`, () => {
    let storage: Storage;
    let teardown: (() => Promise<void>) | undefined;
    let counter = 0;
    const newKey = (ext = "bin") => `media/2026/11/med_contract${++counter}.${ext}`;

    beforeAll(async () => {
      ({ storage, teardown } = await setup());
    });
    afterAll(async () => {
      await teardown?.();
    });

    it("puts bytes and reads them back whole, with head agreeing", async () => {
      const key = newKey("jpg");
      const data = bytesOf(1000, 1);
      const stored = await storage.put(key, data, { contentType: "image/jpeg" });
      expect(stored.size).toBe(1000);
      expectTypeIfKept(stored.contentType, "image/jpeg");
      const head = await storage.head(key);
      expect(head?.size).toBe(1000);
      expectTypeIfKept(head?.contentType, "image/jpeg");
      const read = await storage.get(key);
      expect(read?.size).toBe(1000);
      expect(read?.range).toBeUndefined();
      expectSameBytes(await readAll(read?.body), data);
    });

    it("puts a multi-chunk stream (6 MiB in 64 KiB chunks)", async () => {
      const key = newKey();
      const data = bytesOf(6 * MiB + 123, 2);
      const stored = await storage.put(key, streamOf(data, 64 * KiB), { contentType: "video/mp4" });
      expect(stored.size).toBe(data.byteLength);
      expect((await storage.head(key))?.size).toBe(data.byteLength);
      expectSameBytes(await readAll((await storage.get(key))?.body), data);
    });

    it("stores an empty object", async () => {
      const key = newKey();
      expect(
        (await storage.put(key, streamOf(new Uint8Array(0), 1), { contentType: "text/plain" })).size,
      ).toBe(0);
      expect((await readAll((await storage.get(key))?.body)).byteLength).toBe(0);
    });

    it("reads byte ranges: first, middle and last byte; an end past the size is clamped", async () => {
      const key = newKey();
      const data = bytesOf(1000, 3);
      await storage.put(key, data, { contentType: "application/octet-stream" });
      for (const [start, end, expectedEnd] of [
        [0, 0, 0],
        [100, 199, 199],
        [999, 999, 999],
        [990, 5000, 999],
        [0, 999, 999],
      ] as const) {
        const read = await storage.get(key, { start, end });
        expect(read?.range).toEqual({ start, end: expectedEnd });
        expect(read?.size).toBe(1000);
        expectSameBytes(await readAll(read?.body), data.subarray(start, expectedEnd + 1));
      }
    });

    it("rejects a range that starts at or past the size, or is inverted, with a RangeError", async () => {
      const key = newKey();
      await storage.put(key, bytesOf(100, 4), { contentType: "application/octet-stream" });
      await expect(storage.get(key, { start: 100, end: 100 })).rejects.toBeInstanceOf(RangeError);
      await expect(storage.get(key, { start: 500, end: 600 })).rejects.toBeInstanceOf(RangeError);
      await expect(storage.get(key, { start: 10, end: 5 })).rejects.toBeInstanceOf(RangeError);
    });

    it("answers null for a missing object, with or without a range", async () => {
      const key = newKey();
      expect(await storage.get(key)).toBeNull();
      expect(await storage.get(key, { start: 0, end: 10 })).toBeNull();
      expect(await storage.head(key)).toBeNull();
    });

    it("deletes, and deleting again (or a never-stored key) is not an error", async () => {
      const key = newKey();
      await storage.put(key, bytesOf(10, 5), { contentType: "text/plain" });
      await storage.delete(key);
      expect(await storage.head(key)).toBeNull();
      expect(await storage.get(key)).toBeNull();
      await storage.delete(key);
      await storage.delete(newKey());
    });

    it("overwrites an object whole, with no bytes of the old one left", async () => {
      const key = newKey();
      await storage.put(key, bytesOf(5000, 6), { contentType: "text/plain" });
      const second = bytesOf(300, 7);
      expect((await storage.put(key, streamOf(second, 64), { contentType: "text/plain" })).size).toBe(300);
      expect((await storage.head(key))?.size).toBe(300);
      expectSameBytes(await readAll((await storage.get(key))?.body), second);
    });

    it("accepts exactly maxBytes, and rejects one more with StorageLimitError leaving nothing", async () => {
      const exact = newKey();
      await storage.put(exact, streamOf(bytesOf(1000, 8), 64), { contentType: "text/plain", maxBytes: 1000 });
      expect((await storage.head(exact))?.size).toBe(1000);
      for (const body of [streamOf(bytesOf(1001, 8), 64), bytesOf(1001, 8)]) {
        const key = newKey();
        const put = storage.put(key, body, { contentType: "text/plain", maxBytes: 1000 });
        await expect(put).rejects.toBeInstanceOf(StorageLimitError);
        await expect(put).rejects.toMatchObject({ maxBytes: 1000 });
        expect(await storage.head(key)).toBeNull();
      }
    });

    it("keeps the old object when an overwrite exceeds maxBytes mid-stream (past 5 MiB)", async () => {
      const key = newKey();
      const original = bytesOf(2000, 9);
      await storage.put(key, original, { contentType: "text/plain" });
      const tooBig = streamOf(bytesOf(6 * MiB, 10), 64 * KiB);
      const put = storage.put(key, tooBig, { contentType: "text/plain", maxBytes: 5 * MiB + 512 * KiB });
      await expect(put).rejects.toBeInstanceOf(StorageLimitError);
      expectSameBytes(await readAll((await storage.get(key))?.body), original);
    });

    it("gives a public URL ending with the key", () => {
      const key = newKey("png");
      const url = storage.url(key);
      expect(url.endsWith(`/${key}`)).toBe(true);
      expect(url.startsWith("/") || URL.canParse(url)).toBe(true);
    });

    it("signs a PUT that a plain fetch can use, when the store can presign", async (ctx) => {
      if (!storage.presignPut) return ctx.skip();
      const key = newKey("png");
      const data = bytesOf(4321, 11);
      const signed = await storage.presignPut(key, {
        contentType: "image/png",
        size: 4321,
        expiresInSeconds: 300,
      });
      expect(signed.method).toBe("PUT");
      const response = await fetch(signed.url, {
        method: signed.method,
        headers: signed.headers,
        body: data,
      });
      expect(response.ok).toBe(true);
      const head = await storage.head(key);
      expect(head?.size).toBe(4321);
      expectTypeIfKept(head?.contentType, "image/png");
      expectSameBytes(await readAll((await storage.get(key))?.body), data);
    });

    it("assembles a multipart upload of three parts, when the store has multipart", async (ctx) => {
      const multipart = storage.multipart;
      if (!multipart) return ctx.skip();
      const key = newKey("mov");
      const parts = [bytesOf(5 * MiB, 12), bytesOf(5 * MiB, 13), bytesOf(1234, 14)] as const;
      const { uploadId } = await multipart.create(key, "video/quicktime");
      const etags = [
        await multipart.uploadPart({ key, uploadId, partNumber: 1, body: parts[0] }),
        await multipart.uploadPart({
          key,
          uploadId,
          partNumber: 2,
          body: streamOf(parts[1], 64 * KiB),
          size: 5 * MiB,
        }),
        await multipart.uploadPart({ key, uploadId, partNumber: 3, body: parts[2], size: 1234 }),
      ].map(({ etag }, index) => ({ partNumber: index + 1, etag }));
      expect(await storage.head(key)).toBeNull();
      const stored = await multipart.complete({ key, uploadId, parts: etags });
      const whole = concat([...parts]);
      expect(stored.size).toBe(whole.byteLength);
      expectTypeIfKept((await storage.head(key))?.contentType, "video/quicktime");
      expectSameBytes(await readAll((await storage.get(key))?.body), whole);
      const across = await storage.get(key, { start: 5 * MiB - 10, end: 5 * MiB + 9 });
      expectSameBytes(await readAll(across?.body), whole.subarray(5 * MiB - 10, 5 * MiB + 10));
    });

    it("assembles parts sent out of order and a part sent again, with a part size promised", async (ctx) => {
      const multipart = storage.multipart;
      if (!multipart) return ctx.skip();
      const key = newKey("bin");
      const partSize = 5 * MiB;
      const parts = [bytesOf(partSize, 21), bytesOf(partSize, 22), bytesOf(777, 23)] as const;
      const { uploadId } = await multipart.create(key, "application/octet-stream", { partSize });
      const send = (partNumber: number, body: Uint8Array) =>
        multipart.uploadPart({
          key,
          uploadId,
          partNumber,
          body: streamOf(body, 256 * KiB),
          size: body.byteLength,
        });
      const third = await send(3, bytesOf(999, 29)); // a longer last part, replaced below
      const second = await send(2, parts[1]);
      const first = await send(1, parts[0]);
      const thirdAgain = await send(3, parts[2]);
      expect(thirdAgain.etag).not.toBe(third.etag);
      const stored = await multipart.complete({
        key,
        uploadId,
        parts: [
          { partNumber: 1, etag: first.etag },
          { partNumber: 2, etag: second.etag },
          { partNumber: 3, etag: thirdAgain.etag },
        ],
      });
      const whole = concat([...parts]);
      expect(stored.size).toBe(whole.byteLength);
      expectSameBytes(await readAll((await storage.get(key))?.body), whole);
    });

    it("lists keys under a prefix in key order, after a key and up to a limit, when the store can list", async (ctx) => {
      if (!storage.list) return ctx.skip();
      const keys = [
        "listing/b/d.bin",
        "listing/a/1.bin",
        "listing/ab.bin",
        "listing/b/c/3.bin",
        "listing/a/2.bin",
      ];
      for (const [index, key] of keys.entries()) {
        await storage.put(key, bytesOf(10 + index, index), { contentType: "application/octet-stream" });
      }
      await storage.put("listing-other/x.bin", bytesOf(1, 1), { contentType: "application/octet-stream" });
      const sorted = [...keys].sort();
      const keysOf = (objects: { key: string }[]) => objects.map((object) => object.key);
      const all = await storage.list("listing/");
      expect(keysOf(all)).toEqual(sorted);
      const first = all.find((object) => object.key === "listing/b/d.bin");
      expect(first?.size).toBe(10);
      const age = Date.now() / 1000 - (first?.modifiedAt ?? 0);
      expect(age > -3600 && age < 3600, "modifiedAt is in Unix seconds, about now").toBe(true);
      expect(keysOf(await storage.list("listing/", { limit: 2 }))).toEqual(sorted.slice(0, 2));
      expect(keysOf(await storage.list("listing/", { after: sorted[1], limit: 2 }))).toEqual(
        sorted.slice(2, 4),
      );
      expect(keysOf(await storage.list("listing/", { after: "listing/a/" }))).toEqual(
        sorted.filter((key) => key > "listing/a/"),
      );
      expect(keysOf(await storage.list("listing/b/"))).toEqual(
        sorted.filter((key) => key.startsWith("listing/b/")),
      );
      expect(await storage.list("listing/", { after: sorted[4] })).toEqual([]);
      expect(await storage.list("no-such-prefix/")).toEqual([]);
    });

    it("lists a multipart upload until it is aborted, when the store lists them", async (ctx) => {
      const multipart = storage.multipart;
      if (!multipart?.list) return ctx.skip();
      const key = newKey();
      const { uploadId } = await multipart.create(key, "application/octet-stream");
      const listed = (await multipart.list()).filter((upload) => upload.uploadId === uploadId);
      expect(listed.map((upload) => upload.key)).toEqual([key]);
      const age = Date.now() / 1000 - (listed[0]?.startedAt ?? 0);
      expect(age > -3600 && age < 3600, "startedAt is in Unix seconds, about now").toBe(true);
      await multipart.abort(key, uploadId);
      expect((await multipart.list()).filter((upload) => upload.uploadId === uploadId)).toEqual([]);
    });

    it("aborts a multipart upload leaving nothing, and aborting again is not an error", async (ctx) => {
      const multipart = storage.multipart;
      if (!multipart) return ctx.skip();
      const key = newKey();
      const { uploadId } = await multipart.create(key, "application/octet-stream");
      const { etag } = await multipart.uploadPart({ key, uploadId, partNumber: 1, body: bytesOf(100, 15) });
      await multipart.abort(key, uploadId);
      expect(await storage.head(key)).toBeNull();
      await expect(multipart.complete({ key, uploadId, parts: [{ partNumber: 1, etag }] })).rejects.toThrow();
      expect(await storage.head(key)).toBeNull();
      await multipart.abort(key, uploadId);
    });
  });
}

function bytesOf(length: number, seed: number): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(length);
  for (let i = 0; i < length; i++) data[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return data;
}

function streamOf(data: Uint8Array, chunkSize: number): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= data.byteLength) return controller.close();
      controller.enqueue(data.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array> | undefined): Promise<Uint8Array> {
  if (!body) throw new Error("expected an object, got null");
  return new Uint8Array(await new Response(body).arrayBuffer());
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
