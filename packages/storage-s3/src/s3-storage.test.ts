import type { ReadStream } from "node:fs";
import { createReadStream } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { S3Client, UploadPartCommand } from "@aws-sdk/client-s3";
import { StorageLimitError } from "@quire/core";
import { storageContract } from "@quire/core/testing";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createS3Client, createS3Storage } from "./index.js";

const BUCKET = "quire-test";
const MiB = 1024 * 1024;
const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

let server: S3rver;
let directory: string;
let endpoint: string;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "quire-s3rver-"));
  server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  patchS3rver(server);
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server.close();
  await rm(directory, { recursive: true, force: true });
});

/** A storage on the loopback s3rver: path-style addressing, as it has no DNS for buckets. */
function loopbackStorage() {
  const client = createS3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials });
  return createS3Storage({
    client,
    bucket: BUCKET,
    partSize: 5 * MiB,
    publicBaseUrl: "https://media.example.com",
  });
}

/** Multipart uploads s3rver still holds (aborted or failed ones must not be among them). */
async function openUploads(): Promise<string[]> {
  return readdir(path.join(directory, BUCKET, "._S3rver_uploads")).catch(() => []);
}

storageContract(
  { describe, it, expect, beforeAll, afterAll },
  { name: "s3 (s3rver on loopback)", setup: async () => ({ storage: loopbackStorage() }) },
);

describe("createS3Storage", () => {
  it("aborts the multipart upload and cancels the body when a streamed put passes maxBytes", async () => {
    const storage = loopbackStorage();
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(MiB)),
      cancel: () => {
        cancelled = true;
      },
    });
    const put = storage.put("media/2026/11/too-big.bin", body, { contentType: "x/y", maxBytes: 11 * MiB });
    await expect(put).rejects.toBeInstanceOf(StorageLimitError);
    expect(await storage.head("media/2026/11/too-big.bin")).toBeNull();
    expect(await openUploads()).toEqual([]);
    await vi.waitFor(() => expect(cancelled).toBe(true));
  });

  it("aborts the multipart upload and cancels the body when a part fails", async () => {
    const client = createS3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials });
    const send = client.send.bind(client);
    client.send = ((command: { input: { PartNumber?: number } }) =>
      command instanceof UploadPartCommand && command.input.PartNumber === 2
        ? Promise.reject(new Error("part 2 failed"))
        : send(command as never)) as typeof client.send;
    const storage = createS3Storage({ client, bucket: BUCKET, partSize: 5 * MiB, publicBaseUrl: "/" });
    let sent = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (sent++ < 40) controller.enqueue(new Uint8Array(MiB));
        else controller.close();
      },
      cancel: () => {
        cancelled = true;
      },
    });
    await expect(storage.put("media/2026/11/failed.bin", body, { contentType: "x/y" })).rejects.toThrow(
      "part 2 failed",
    );
    expect(await storage.head("media/2026/11/failed.bin")).toBeNull();
    expect(await openUploads()).toEqual([]);
    await vi.waitFor(() => expect(cancelled).toBe(true));
  });

  it("signs content-type and content-length into a presigned PUT, with no empty-body checksum", async () => {
    const signed = await loopbackStorage().presignPut!("media/a.png", {
      contentType: "image/png",
      size: 10,
      expiresInSeconds: 60,
    });
    const url = new URL(signed.url);
    expect(url.searchParams.get("X-Amz-SignedHeaders")?.split(";")).toEqual([
      "content-length",
      "content-type",
      "host",
    ]);
    expect([...url.searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
    expect(signed.headers).toEqual({ "content-type": "image/png", "content-length": "10" });
  });

  it("stores the content disposition, and the bucket serves it, whichever way the object came", async () => {
    const storage = loopbackStorage();
    const served = async (key: string) => {
      const response = await fetch(`${endpoint}/${BUCKET}/${key}`);
      await response.arrayBuffer();
      return response.headers.get("content-disposition");
    };
    const attachment = (name: string) => `attachment; filename="${name}"`;
    await storage.put("media/whole.zip", new Uint8Array(10), {
      contentType: "application/zip",
      contentDisposition: attachment("whole.zip"),
    });
    expect(await served("media/whole.zip")).toBe(attachment("whole.zip"));
    // a stream longer than a part goes up as a multipart upload
    const chunks = [new Uint8Array(3 * MiB), new Uint8Array(3 * MiB)];
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const chunk = chunks.shift();
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
    });
    await storage.put("media/streamed.zip", stream, {
      contentType: "application/zip",
      contentDisposition: attachment("streamed.zip"),
    });
    expect(await served("media/streamed.zip")).toBe(attachment("streamed.zip"));

    const signed = await storage.presignPut!("media/signed.zip", {
      contentType: "application/zip",
      contentDisposition: attachment("signed.zip"),
      size: 4,
      expiresInSeconds: 60,
    });
    expect(new URL(signed.url).searchParams.get("X-Amz-SignedHeaders")?.split(";")).toContain(
      "content-disposition",
    );
    const put = await fetch(signed.url, { method: "PUT", headers: signed.headers, body: new Uint8Array(4) });
    expect(put.status).toBe(200);
    expect(await served("media/signed.zip")).toBe(attachment("signed.zip"));

    const multipart = storage.multipart!;
    const { uploadId } = await multipart.create("media/parts.zip", "application/zip", {
      contentDisposition: attachment("parts.zip"),
    });
    const part = await multipart.uploadPart({
      key: "media/parts.zip",
      uploadId,
      partNumber: 1,
      body: new Uint8Array(5),
    });
    await multipart.complete({ key: "media/parts.zip", uploadId, parts: [{ partNumber: 1, ...part }] });
    expect(await served("media/parts.zip")).toBe(attachment("parts.zip"));
  });

  it("refuses to presign with a client that would sign an empty-body checksum", async () => {
    const client = new S3Client({ region: "us-east-1", endpoint, forcePathStyle: true, credentials });
    const storage = createS3Storage({ client, bucket: BUCKET, region: "us-east-1" });
    const presign = storage.presignPut!("media/a.png", {
      contentType: "image/png",
      size: 1,
      expiresInSeconds: 60,
    });
    await expect(presign).rejects.toThrow(/requestChecksumCalculation/);
  });

  it("derives a public URL from the endpoint or region when none is given", () => {
    const key = "media/2026/11/med 1.jpg";
    const make = (options: Partial<Parameters<typeof createS3Storage>[0]>) =>
      createS3Storage({ bucket: "b", credentials, region: "us-east-1", ...options }).url(key);
    expect(make({ publicBaseUrl: "/media/" })).toBe("/media/media/2026/11/med%201.jpg");
    expect(make({ endpoint: "http://127.0.0.1:9000", forcePathStyle: true })).toBe(
      "http://127.0.0.1:9000/b/media/2026/11/med%201.jpg",
    );
    expect(make({ endpoint: "https://s3.example.com" })).toBe(
      "https://b.s3.example.com/media/2026/11/med%201.jpg",
    );
    expect(make({ region: "eu-west-3" })).toBe(
      "https://b.s3.eu-west-3.amazonaws.com/media/2026/11/med%201.jpg",
    );
    const client = createS3Client({ region: "us-east-1", credentials });
    expect(() => createS3Storage({ client, bucket: "b" })).toThrow(/publicBaseUrl/);
  });

  it("refuses keys with empty, . or .. segments, backslashes or control characters", async () => {
    const storage = loopbackStorage();
    for (const key of ["", "/media/a", "media/../a", "media/./a", "media//a", "media\\a", "media/a\0"]) {
      expect(() => storage.url(key)).toThrow(/invalid storage key/);
      await expect(storage.get(key)).rejects.toThrow(/invalid storage key/);
      await expect(storage.put(key, new Uint8Array(1), { contentType: "x/y" })).rejects.toThrow(
        /invalid storage key/,
      );
    }
  });

  it("rejects a part size outside S3's limits", () => {
    expect(() => createS3Storage({ bucket: "b", region: "us-east-1", partSize: MiB })).toThrow(RangeError);
  });
});

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
  body: unknown;
  length: number;
  store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
  get(header: string): string;
  set(header: string, value: string): void;
}

/**
 * Works around two gaps of s3rver (test setup, not adapter behaviour): it has no
 * AbortMultipartUpload (DELETE ?uploadId answers 405), so the shim drops the upload's parts as S3
 * does; and it reads `Range: bytes=0-0` as "to the end" (`0 || Infinity`), so the shim trims it.
 */
function patchS3rver(app: S3rver): void {
  const middleware = (
    app as unknown as { middleware: ((ctx: KoaContext, next: () => Promise<void>) => unknown)[] }
  ).middleware;
  middleware.unshift(async (ctx, next) => {
    // s3rver names the next page of a truncated listing with a DES cipher that Node 20's OpenSSL
    // no longer has (500 InternalError): list whole pages, and the adapter keeps to its limit.
    if (ctx.method === "GET" && ctx.query["list-type"] === "2") delete ctx.query["max-keys"];
    const uploadId = ctx.query.uploadId;
    if (ctx.method === "DELETE" && typeof uploadId === "string" && /^[\w-]+$/.test(uploadId)) {
      const bucket = ctx.path.split("/")[1] ?? "";
      await rm(path.join(ctx.store.getResourcePath(bucket, undefined, "uploads"), uploadId), {
        recursive: true,
        force: true,
      });
      ctx.status = 204;
      return;
    }
    await next();
    if (ctx.method === "GET" && ctx.get("range") === "bytes=0-0" && ctx.status === 206) {
      const whole = ctx.body as ReadStream;
      whole.destroy();
      const size = /\/(\d+)$/.exec(
        String((ctx as unknown as { response: KoaContext }).response.get("content-range")),
      );
      ctx.body = createReadStream(whole.path, { start: 0, end: 0 });
      ctx.set("Content-Range", `bytes 0-0/${size?.[1]}`);
      ctx.length = 1;
    }
  });
}
