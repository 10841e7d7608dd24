import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { EngineConfig, Storage } from "@quire/core";
import { createFsStorage } from "@quire/storage-fs";
import { createS3Client, createS3Storage } from "@quire/storage-s3";
import S3rver from "s3rver";
import { onTestFinished } from "vitest";
import { createFileHandler, type FetchHandler } from "../src/index.js";
import { createTestSite, once, type TestSite } from "./helpers.js";

export const KiB = 1024;
export const MiB = 1024 * KiB;

/**
 * A test site with file storage, the file handler, and a way to look at the store; like a
 * {@link TestSite}, it is closed (and its store emptied) when the test finishes.
 */
export interface MediaSite extends TestSite {
  storage: Storage;
  /** Serves the store at `/media` (fs) — S3 objects are fetched from the store itself. */
  files: FetchHandler;
  /** Downloads a file from its public URL. */
  download(url: string, headers?: Record<string, string>): Promise<Response>;
  /** Every object key the store holds (and, for multipart uploads in progress, a marker per upload). */
  storedKeys(): Promise<string[]>;
}

/** A media site on a temp-folder store served at `/media`. */
export async function createFsMediaSite(
  options: { config?: Partial<EngineConfig>; sitePathPrefix?: string } = {},
): Promise<MediaSite> {
  const root = await mkdtemp(path.join(tmpdir(), "quire-media-"));
  const prefix = options.sitePathPrefix ?? "";
  const storage = createFsStorage({ root, publicBaseUrl: `${prefix}/media` });
  const files = createFileHandler(storage, { prefix: `${prefix}/media` });
  return mediaSite({
    storage,
    files,
    config: options.config,
    sitePathPrefix: prefix,
    storedKeys: async () => [
      ...(await walk(root)).filter((key) => !key.startsWith(".tmp/")),
      ...(await walk(path.join(root, ".tmp"))).map((key) => `.tmp/${key}`),
    ],
    teardown: () => rm(root, { recursive: true, force: true }),
  });
}

/** A loopback S3 server (s3rver) for one test file. */
export interface S3Server {
  endpoint: string;
  directory: string;
  bucket: string;
  close(): Promise<void>;
}

const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** Starts s3rver on 127.0.0.1 with one bucket. */
export async function startS3Server(): Promise<S3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), "quire-s3-"));
  const bucket = "quire-media";
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  addMultipartAbort(server);
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory,
    bucket,
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A media site on an S3 store (presigned PUT unless `presign: false`, multipart) whose objects are public at the server. */
export async function createS3MediaSite(
  server: S3Server,
  options: { config?: Partial<EngineConfig>; presign?: boolean } = {},
): Promise<MediaSite> {
  const client = createS3Client({
    region: "us-east-1",
    endpoint: server.endpoint,
    forcePathStyle: true,
    credentials,
  });
  const publicBaseUrl = `${server.endpoint}/${server.bucket}`;
  const s3 = createS3Storage({ client, bucket: server.bucket, partSize: 5 * MiB, publicBaseUrl });
  // Without presigning the engine falls back to relaying through itself.
  const storage: Storage = options.presign === false ? { ...s3, presignPut: undefined } : s3;
  const bucketDir = path.join(server.directory, server.bucket);
  return mediaSite({
    storage,
    files: async () => new Response("not used with S3", { status: 404 }),
    config: options.config,
    sitePathPrefix: "",
    storedKeys: async () => {
      const all = await walk(bucketDir);
      // Objects are `<key>._S3rver_object` files; multipart uploads in progress are folders of parts.
      return all
        .filter((file) => file.endsWith("._S3rver_object") || file.startsWith("._S3rver_uploads/"))
        .map((file) => file.replace(/\._S3rver_object$/, ""));
    },
    teardown: async () => {
      // Each test starts from an empty bucket.
      for (const entry of await readdir(bucketDir).catch(() => [])) {
        await rm(path.join(bucketDir, entry), { recursive: true, force: true });
      }
    },
  });
}

async function mediaSite(input: {
  storage: Storage;
  files: FetchHandler;
  config: Partial<EngineConfig> | undefined;
  sitePathPrefix: string;
  storedKeys: () => Promise<string[]>;
  teardown: () => Promise<void>;
}): Promise<MediaSite> {
  const site = await createTestSite({
    engineConfig: {
      storage: input.storage,
      config: input.config,
      settings: { sitePathPrefix: input.sitePathPrefix },
    },
  });
  const cleanup = once(async () => {
    await site.cleanup();
    await input.teardown();
  });
  onTestFinished(cleanup);
  return {
    ...site,
    storage: input.storage,
    files: input.files,
    storedKeys: input.storedKeys,
    download: async (url, headers = {}) => {
      if (/^https?:/.test(url)) return fetch(url, { headers });
      return input.files(new Request(`http://localhost${url}`, { headers }));
    },
    cleanup,
  };
}

async function walk(dir: string, base = ""): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const entry of entries) {
    const relative = base === "" ? entry.name : `${base}/${entry.name}`;
    if (entry.isDirectory()) out.push(...(await walk(path.join(dir, entry.name), relative)));
    else out.push(relative);
  }
  return out;
}

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
  store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
}

/**
 * s3rver answers AbortMultipartUpload (DELETE ?uploadId) with 405; S3 drops the upload's parts.
 * This shim does what S3 does, so aborts can be tested (test setup, not engine behaviour).
 */
function addMultipartAbort(server: S3rver): void {
  const stack = (
    server as unknown as { middleware: ((ctx: KoaContext, next: () => Promise<void>) => unknown)[] }
  ).middleware;
  stack.unshift(async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    if (ctx.method !== "DELETE" || typeof uploadId !== "string" || !/^[\w-]+$/.test(uploadId)) return next();
    const bucket = ctx.path.split("/")[1] ?? "";
    const folder = path.join(ctx.store.getResourcePath(bucket, undefined, "uploads"), uploadId);
    await rm(folder, { recursive: true, force: true });
    ctx.status = 204;
  });
}

/** Base64 SHA-256, as `checksumSha256` is sent. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64");
}

/** Deterministic filler bytes. */
export function filler(length: number, seed = 1): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 131 + seed * 17 + (i >> 10)) & 0xff;
  return out;
}

const be32 = (n: number) => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** A file starting with a real PNG header (IHDR with these dimensions), padded to `size`. */
export function pngFile(width: number, height: number, size = 2048): Uint8Array<ArrayBuffer> {
  const head = [
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...be32(13),
    ...ascii("IHDR"),
    ...be32(width),
    ...be32(height),
    8,
    6,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ];
  return withHead(head, size);
}

/** A file starting with a JPEG header whose frame has these dimensions, padded to `size`. */
export function jpegFile(width: number, height: number, size = 2048): Uint8Array<ArrayBuffer> {
  const head = [
    0xff,
    0xd8,
    0xff,
    0xe0,
    0,
    16,
    ...ascii("JFIF"),
    0,
    1,
    1,
    0,
    0,
    1,
    0,
    1,
    0,
    0,
    0xff,
    0xc0,
    0,
    17,
    8,
    (height >> 8) & 0xff,
    height & 0xff,
    (width >> 8) & 0xff,
    width & 0xff,
    3,
    1,
    0x11,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ];
  return withHead(head, size);
}

/** A lossless WebP header (VP8L) with these dimensions, padded to `size`. */
export function webpFile(width: number, height: number, size = 256): Uint8Array<ArrayBuffer> {
  const bits = (width - 1) | ((height - 1) << 14);
  const le32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
  const head = [
    ...ascii("RIFF"),
    ...le32(size - 8),
    ...ascii("WEBPVP8L"),
    ...le32(size - 20),
    0x2f,
    ...le32(bits),
  ];
  return withHead(head, size);
}

/** An MP4 starting with its `ftyp` box, padded to `size`. */
export function mp4File(size = 4096): Uint8Array<ArrayBuffer> {
  return withHead([0, 0, 0, 24, ...ascii("ftypisom"), 0, 0, 2, 0, ...ascii("isomiso2")], size);
}

/** A small PDF-looking document. */
export function pdfFile(size = 1500): Uint8Array<ArrayBuffer> {
  return withHead(ascii("%PDF-1.7\n"), size);
}

function withHead(head: number[], size: number): Uint8Array<ArrayBuffer> {
  const out = filler(Math.max(size, head.length), size);
  out.set(head);
  return out;
}

/** A `multipart/form-data` body with a fixed boundary: text fields and files in the given order. */
export function formBody(
  entries: (
    | { name: string; value: string }
    | { name: string; filename: string; type: string; data: Uint8Array }
  )[],
): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const boundary = "quire-test-boundary-1f2e3d";
  const encoder = new TextEncoder();
  const pieces: Uint8Array[] = [];
  for (const entry of entries) {
    const header =
      "filename" in entry
        ? `Content-Disposition: form-data; name="${entry.name}"; filename="${entry.filename}"\r\nContent-Type: ${entry.type}`
        : `Content-Disposition: form-data; name="${entry.name}"`;
    pieces.push(encoder.encode(`--${boundary}\r\n${header}\r\n\r\n`));
    pieces.push("filename" in entry ? entry.data : encoder.encode(entry.value));
    pieces.push(encoder.encode("\r\n"));
  }
  pieces.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0));
  let at = 0;
  for (const piece of pieces) {
    body.set(piece, at);
    at += piece.byteLength;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Bytes of a response. */
export async function bytesOf(response: Response): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await response.arrayBuffer());
}

/** The SHA-256 of a download, for comparing megabytes without an element-by-element diff. */
export async function digestOf(response: Response): Promise<string> {
  return sha256(await bytesOf(response));
}
