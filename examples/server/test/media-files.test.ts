import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Storage } from "@quire/core";
import { createFsStorage } from "@quire/storage-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMediaHandler } from "../src/media-files.js";

describe("createMediaHandler", () => {
  let root: string;
  let storage: Storage;
  let serve: ReturnType<typeof createMediaHandler>;
  const text = "0123456789abcdefghij";
  const get = async (pathname: string, init: RequestInit = {}) => {
    const response = await serve(new Request(`http://localhost${pathname}`, init));
    if (!response) throw new Error(`no answer for ${pathname}`);
    return response;
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), "quire-media-"));
    storage = createFsStorage({ root, publicBaseUrl: "/blog/media" });
    await storage.put("images/photo one.png", new TextEncoder().encode(text), { contentType: "image/png" });
    await storage.put("files/data.bin", new TextEncoder().encode(text), {
      contentType: "application/octet-stream",
    });
    serve = createMediaHandler({ storage, basePath: "/blog/media" });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("leaves paths outside its base to the next handler", async () => {
    expect(await serve(new Request("http://localhost/blog/api/posts"))).toBeUndefined();
    expect(await serve(new Request("http://localhost/media/images/x.png"))).toBeUndefined();
  });

  it("serves the address the storage hands out", async () => {
    const url = storage.url("images/photo one.png");
    expect(url).toBe("/blog/media/images/photo%20one.png");
    const response = await get(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("content-length")).toBe("20");
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    expect(await response.text()).toBe(text);
  });

  it("falls back to application/octet-stream for unknown extensions", async () => {
    const response = await get("/blog/media/files/data.bin");
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it.each([
    ["bytes=0-0", "bytes 0-0/20", "0"],
    ["bytes=15-", "bytes 15-19/20", "fghij"],
    ["bytes=-3", "bytes 17-19/20", "hij"],
    ["bytes=18-100", "bytes 18-19/20", "ij"],
    ["bytes=-100", "bytes 0-19/20", text],
  ])("answers Range %s with 206 %s", async (range, contentRange, body) => {
    const response = await get("/blog/media/files/data.bin", { headers: { range } });
    expect(response.status).toBe(206);
    expect(response.headers.get("content-range")).toBe(contentRange);
    expect(response.headers.get("content-length")).toBe(String(body.length));
    expect(await response.text()).toBe(body);
  });

  it.each(["bytes=20-", "bytes=25-30", "bytes=-0"])("answers Range %s with 416", async (range) => {
    const response = await get("/blog/media/files/data.bin", { headers: { range } });
    expect(response.status).toBe(416);
    expect(response.headers.get("content-range")).toBe("bytes */20");
  });

  it.each(["bytes=0-1,4-5", "items=0-1", "bytes=5-2", "bytes=abc"])(
    "serves the whole file for Range %s",
    async (range) => {
      const response = await get("/blog/media/files/data.bin", { headers: { range } });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(text);
    },
  );

  it("honours If-Range and If-None-Match", async () => {
    const etag = (await get("/blog/media/files/data.bin")).headers.get("etag") ?? "";
    const current = await get("/blog/media/files/data.bin", {
      headers: { range: "bytes=0-1", "if-range": etag },
    });
    expect(current.status).toBe(206);
    const stale = await get("/blog/media/files/data.bin", {
      headers: { range: "bytes=0-1", "if-range": '"old"' },
    });
    expect(stale.status).toBe(200);
    const cached = await get("/blog/media/files/data.bin", {
      headers: { "if-none-match": `"other", ${etag}` },
    });
    expect(cached.status).toBe(304);
    expect(cached.headers.get("etag")).toBe(etag);
  });

  it("answers HEAD with the headers only", async () => {
    const response = await get("/blog/media/files/data.bin", { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe("20");
    expect(await response.text()).toBe("");
  });

  it.each([
    "/blog/media/missing.png",
    "/blog/media/.tmp/x",
    "/blog/media/files/..%2F..%2Fetc%2Fpasswd",
    "/blog/media/files/%E0%A4%A",
    "/blog/media/files//data.bin",
    "/blog/media/files/",
    "/blog/media/files",
  ])("answers 404 for %s", async (pathname) => {
    expect((await get(pathname)).status).toBe(404);
  });

  it("answers 405 to other methods", async () => {
    const response = await get("/blog/media/files/data.bin", { method: "POST", body: "x" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
  });
});
