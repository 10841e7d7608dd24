import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Storage } from "@quire/core";
import { createFsStorage } from "@quire/storage-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFileHandler, type FetchHandler } from "../src/index.js";
import { bytesOf, filler } from "./uploads-fixtures.js";

let root: string;
let storage: Storage;
let files: FetchHandler;
const image = filler(1000, 3);
const imageKey = "media/2026/01/med_x/photo.jpg";

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), "quire-files-"));
  storage = createFsStorage({ root, publicBaseUrl: "/blog/media" });
  files = createFileHandler(storage, { prefix: "/blog/media/" });
  await storage.put(imageKey, image, { contentType: "image/jpeg" });
  for (const [key, size] of [
    ["media/2026/01/med_p/report.pdf", 10],
    ["media/2026/01/med_z/archive.zip", 10],
    ["media/2026/01/med_h/page.html", 10],
    ["media/2026/01/med_v/clip.mp4", 10],
    ["media/2026/01/med_a/song.m4a", 10],
    ["attachments/med_t.md", 10],
    ["media/2026/01/med_e/empty.txt", 0],
  ] as const) {
    await storage.put(key, filler(size), { contentType: "application/octet-stream" });
  }
});
afterAll(() => rm(root, { recursive: true, force: true }));

const get = (target: string, headers: Record<string, string> = {}, method = "GET") =>
  files(new Request(`http://localhost${target}`, { method, headers }));

describe("createFileHandler", () => {
  it("serves a stored object with its type, caching headers and ETag", async () => {
    const response = await get(`/blog/media/${imageKey}`);
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "content-type": "image/jpeg",
      "content-length": "1000",
      "content-disposition": 'inline; filename="photo.jpg"',
      "x-content-type-options": "nosniff",
      "cache-control": "public, max-age=31536000, immutable",
      "accept-ranges": "bytes",
      etag: expect.stringMatching(/^"/),
    });
    expect(await bytesOf(response)).toEqual(image);
  });

  it("opens images, video, audio and PDF inline and downloads everything else", async () => {
    const cases = [
      ["media/2026/01/med_p/report.pdf", "application/pdf", "inline"],
      ["media/2026/01/med_v/clip.mp4", "video/mp4", "inline"],
      ["media/2026/01/med_a/song.m4a", "audio/mp4", "inline"],
      ["media/2026/01/med_z/archive.zip", "application/zip", "attachment"],
      ["media/2026/01/med_h/page.html", "application/octet-stream", "attachment"],
      ["attachments/med_t.md", "text/markdown; charset=utf-8", "attachment"],
    ] as const;
    for (const [key, type, disposition] of cases) {
      const response = await get(`/blog/media/${key}`);
      expect(response.headers.get("content-type"), key).toBe(type);
      expect(response.headers.get("content-disposition"), key).toMatch(
        new RegExp(`^${disposition}; filename=`),
      );
      expect(response.headers.get("content-security-policy") === null, key).toBe(key.endsWith(".pdf"));
    }
  });

  it("answers byte ranges with 206 and Content-Range, and 416 past the end", async () => {
    const url = `/blog/media/${imageKey}`;
    const first = await get(url, { range: "bytes=0-99" });
    expect(first.status).toBe(206);
    expect(first.headers.get("content-range")).toBe("bytes 0-99/1000");
    expect(first.headers.get("content-length")).toBe("100");
    expect(await bytesOf(first)).toEqual(image.subarray(0, 100));
    const open = await get(url, { range: "bytes=990-" });
    expect(open.headers.get("content-range")).toBe("bytes 990-999/1000");
    expect(await bytesOf(open)).toEqual(image.subarray(990));
    const suffix = await get(url, { range: "bytes=-5" });
    expect(await bytesOf(suffix)).toEqual(image.subarray(995));
    const clamped = await get(url, { range: "bytes=900-5000" });
    expect(clamped.headers.get("content-range")).toBe("bytes 900-999/1000");
    for (const range of ["bytes=1000-", "bytes=5000-6000", "bytes=-0"]) {
      const response = await get(url, { range });
      expect(response.status, range).toBe(416);
      expect(response.headers.get("content-range")).toBe("bytes */1000");
    }
    expect((await get("/blog/media/media/2026/01/med_e/empty.txt", { range: "bytes=0-" })).status).toBe(416);
    for (const range of ["bytes=0-1,5-6", "items=0-1", "bytes=9-3"]) {
      const response = await get(url, { range });
      expect(response.status, range).toBe(200);
      expect((await bytesOf(response)).byteLength).toBe(1000);
    }
  });

  it("honours If-None-Match (304) and If-Range", async () => {
    const url = `/blog/media/${imageKey}`;
    const etag = (await get(url)).headers.get("etag") as string;
    const cached = await get(url, { "if-none-match": etag });
    expect(cached.status).toBe(304);
    expect(cached.headers.get("etag")).toBe(etag);
    expect(await cached.text()).toBe("");
    expect((await get(url, { "if-none-match": `"other", W/${etag}` })).status).toBe(304);
    expect((await get(url, { "if-none-match": '"other"' })).status).toBe(200);
    expect((await get(url, { range: "bytes=0-9", "if-range": etag })).status).toBe(206);
    expect((await get(url, { range: "bytes=0-9", "if-range": '"stale"' })).status).toBe(200);
  });

  it("answers HEAD with the headers only", async () => {
    const response = await get(`/blog/media/${imageKey}`, {}, "HEAD");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe("1000");
    expect(await response.text()).toBe("");
    const ranged = await get(`/blog/media/${imageKey}`, { range: "bytes=10-19" }, "HEAD");
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-length")).toBe("10");
  });

  it("answers 404 for missing objects and paths that cannot be keys, 405 for other methods", async () => {
    for (const target of [
      "/blog/media/media/2026/01/med_x/missing.jpg",
      "/media/2026/01/med_x/photo.jpg",
      "/blog/media/",
      "/blog/media/media/2026/01/med_x/%2E%2E/%2E%2E/photo.jpg",
      "/blog/media/.tmp/anything",
      "/blog/media/media//2026/photo.jpg",
      "/blog/media/media/%E0%A4%A/photo.jpg",
      "/blog/media/media/a%5Cb.jpg",
    ]) {
      expect((await get(target)).status, target).toBe(404);
    }
    const post = await get(`/blog/media/${imageKey}`, {}, "POST");
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });
});
