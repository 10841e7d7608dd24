import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTestSite, expectError } from "./helpers.js";
import {
  bytesOf,
  createFsMediaSite,
  filler,
  jpegFile,
  KiB,
  type MediaSite,
  mp4File,
  pdfFile,
  pngFile,
  sha256,
  webpFile,
} from "./uploads-fixtures.js";

/** Small thresholds so multipart relays stay a few KiB in tests. */
const config = { uploadMultipartThreshold: 64 * KiB, uploadPartSize: 32 * KiB, uploadMaxBytes: 1024 * KiB };

let site: MediaSite;

async function init(body: Record<string, unknown>) {
  const response = await site.call("POST", "/api/uploads/init", body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { id: string; transport: Record<string, unknown> & { url: string } };
}

/** init → PUT body → complete, through the relay transport. */
async function relayUpload(file: Uint8Array, contentType: string, filename: string, details: object = {}) {
  const { id, transport } = await init({ filename, contentType, size: file.byteLength });
  expect((await site.send("PUT", transport.url, file)).status).toBe(204);
  const done = await site.call("POST", `/api/uploads/${id}/complete`, details);
  expect(done.status, JSON.stringify(done.body)).toBe(201);
  return done.body;
}

describe("POST /api/uploads/init", () => {
  it("offers relay for small files and multipartRelay for large ones, with URLs under the site prefix", async () => {
    site = await createFsMediaSite({ config, sitePathPrefix: "/blog" });
    const call = (body: object) => site.call("POST", "/blog/api/uploads/init", body);
    const small = await call({ filename: "a.png", contentType: "image/png", size: 1000 });
    expect(small.status).toBe(200);
    expect(small.body).toEqual({
      id: expect.stringMatching(/^upl_[0-9a-z]{26}$/),
      transport: { kind: "relay", method: "PUT", url: `/blog/api/uploads/${small.body.id}/body` },
    });
    const large = await call({ filename: "v.mp4", contentType: "video/mp4", size: 100 * KiB });
    expect(large.body.transport).toEqual({
      kind: "multipartRelay",
      method: "PUT",
      url: `/blog/api/uploads/${large.body.id}/part`,
      partSize: 32 * KiB,
    });
  });

  it("answers 400 for unsupported media types, sizes past the limit and unreadable fields", async () => {
    site = await createFsMediaSite({ config });
    const valid = { filename: "a.jpg", contentType: "image/jpeg", size: 10 };
    const bad: object[] = [
      { ...valid, contentType: "image/gif" },
      { ...valid, contentType: "image/svg+xml" },
      { ...valid, contentType: "video/quicktime" },
      { ...valid, contentType: "audio/mpeg" },
      { ...valid, contentType: "nonsense" },
      { ...valid, size: 1024 * KiB + 1 },
      { ...valid, size: -1 },
      { ...valid, size: 1.5 },
      { ...valid, size: "10" },
      { ...valid, filename: "" },
      { ...valid, checksumSha256: "not-base64!" },
      { ...valid, checksumSha256: "AAAA" },
      { contentType: "image/jpeg", size: 10 },
    ];
    for (const body of bad) {
      const response = await site.call("POST", "/api/uploads/init", body);
      expectError(response, 400, "VALIDATION_ERROR", JSON.stringify(body));
    }
    const gif = await site.call("POST", "/api/uploads/init", bad[0]);
    expect(gif.body.details.fieldErrors.contentType).toHaveLength(1);
    expect((await site.storedKeys()).length).toBe(0);
  });

  it("answers CONFIGURATION_ERROR on a site without storage, and 401 without auth", async () => {
    const bare = await createTestSite();
    const response = await bare.call("POST", "/api/uploads/init", {
      filename: "a",
      contentType: "text/plain",
      size: 1,
    });
    expectError(response, 500, "CONFIGURATION_ERROR");
    for (const [method, path] of [
      ["GET", "/api/media"],
      ["GET", "/api/media/med_01h2xcejqtf2nbrexx3vqjhp41"],
    ] as const) {
      expect((await bare.call(method, path)).body.code).toBe("CONFIGURATION_ERROR");
    }
    const anonymous = await bare.call("POST", "/api/uploads/init", {}, { authorization: "" });
    expect(anonymous.status).toBe(401);
  });
});

describe("relay transport, end to end on local storage", () => {
  it("sends, completes, attaches, reads, downloads and deletes, leaving the store empty", async () => {
    site = await createFsMediaSite({ config });
    const file = pngFile(640, 480, 20 * KiB);
    const media = await relayUpload(file, "image/png", "Holiday Photo.PNG", {
      blurhash: "LEHV6nWB2yk8",
      alt: " Sea ",
    });
    expect(media).toEqual({
      id: expect.stringMatching(/^med_/),
      postId: null,
      type: "media",
      mediaKind: "image",
      mimeType: "image/png",
      originalName: "Holiday Photo.PNG",
      size: file.byteLength,
      width: 640,
      height: 480,
      durationSeconds: null,
      alt: "Sea",
      blurhash: "LEHV6nWB2yk8",
      waveform: null,
      summary: null,
      chars: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      url: expect.stringMatching(/^\/media\/media\/\d{4}\/\d{2}\/med_[0-9a-z]+\/holiday-photo\.png$/),
      previewUrl: media.url,
      posterUrl: null,
    });
    const post = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "Look",
      attachments: [{ type: "media", mediaId: media.id }],
    });
    expect(post.status).toBe(201);
    expect(post.body.attachments).toEqual([
      expect.objectContaining({ type: "media", id: media.id, url: media.url, width: 640, alt: "Sea" }),
    ]);
    expect((await site.call("GET", `/api/media/${media.id}`)).body.postId).toBe(post.body.id);
    const read = await site.call("GET", `/api/posts/${post.body.id}`);
    expect(read.body.attachments[0].id).toBe(media.id);

    const download = await site.download(media.url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(await bytesOf(download)).toEqual(file);

    expect((await site.call("DELETE", `/api/posts/${post.body.id}`)).body).toEqual({ success: true });
    expect((await site.call("GET", `/api/media/${media.id}`)).status).toBe(404);
    expect((await site.download(media.url)).status).toBe(404);
    expect(await site.storedKeys()).toEqual([]);
  });

  it("takes a streamed body and trusts a matching Content-Length", async () => {
    site = await createFsMediaSite({ config });
    const file = jpegFile(30, 20, 50 * KiB);
    const { id, transport } = await init({
      filename: "s.jpg",
      contentType: "image/jpeg",
      size: file.byteLength,
    });
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= file.byteLength) return controller.close();
        controller.enqueue(file.slice(offset, offset + 4000));
        offset += 4000;
      },
    });
    const put = await site.send("PUT", transport.url, stream, { "content-length": String(file.byteLength) });
    expect(put.status).toBe(204);
    expect(put.body).toBeNull();
    const done = await site.call("POST", `/api/uploads/${id}/complete`, {});
    expect(done.body).toMatchObject({ width: 30, height: 20, size: file.byteLength });
  });

  it("refuses a body shorter or longer than declared, keeping nothing, and accepts a retry", async () => {
    site = await createFsMediaSite({ config });
    const file = pdfFile(5000);
    const { id, transport } = await init({ filename: "doc.pdf", contentType: "application/pdf", size: 5000 });
    for (const body of [file.subarray(0, 4999), filler(5001)]) {
      const response = await site.send("PUT", transport.url, body);
      expectError(response, 400, "VALIDATION_ERROR");
      expect(await site.storedKeys()).toEqual([]);
    }
    const lying = await site.send("PUT", transport.url, file, { "content-length": "4000" });
    expect(lying.status).toBe(400);
    expect((await site.call("POST", `/api/uploads/${id}/complete`, {})).status).toBe(400);
    expect((await site.send("PUT", transport.url, file)).status).toBe(204);
    expect((await site.call("POST", `/api/uploads/${id}/complete`, {})).body.mediaKind).toBe("document");
  });

  it("forgets an earlier body when a retry is refused", async () => {
    site = await createFsMediaSite({ config });
    const file = pdfFile(4000);
    const { id, transport } = await init({ filename: "d.pdf", contentType: "application/pdf", size: 4000 });
    expect((await site.send("PUT", transport.url, file)).status).toBe(204);
    expect((await site.send("PUT", transport.url, file.subarray(0, 10))).status).toBe(400);
    expect(await site.storedKeys()).toEqual([]);
    // Not ready: the session stays open for another body.
    expect((await site.call("POST", `/api/uploads/${id}/complete`, {})).status).toBe(400);
    expect((await site.send("PUT", transport.url, file)).status).toBe(204);
    expect((await site.call("POST", `/api/uploads/${id}/complete`, {})).status).toBe(201);
  });

  it("accepts a body that began while the session was open and ended past its lifetime", async () => {
    site = await createFsMediaSite({ config });
    const file = pdfFile(3 * 1000);
    const { id, transport } = await init({
      filename: "slow.pdf",
      contentType: "application/pdf",
      size: 3000,
    });
    site.clock.advance(14 * 60);
    let sent = 0;
    const slow = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent >= 3000) return controller.close();
          controller.enqueue(file.slice(sent, sent + 1000));
          sent += 1000;
          site.clock.advance(60);
        },
      },
      { highWaterMark: 0 },
    );
    expect((await site.send("PUT", transport.url, slow)).status).toBe(204);
    expect((await site.call("POST", `/api/uploads/${id}/complete`, {})).status).toBe(201);
  });

  it("verifies checksumSha256 while streaming", async () => {
    site = await createFsMediaSite({ config });
    const file = pdfFile(3000);
    const wrong = await init({
      filename: "a.pdf",
      contentType: "application/pdf",
      size: 3000,
      checksumSha256: sha256(filler(3000)),
    });
    const refused = await site.send("PUT", wrong.transport.url, file);
    expect(refused.status).toBe(400);
    expect(refused.body.details.fieldErrors.checksumSha256).toBeDefined();
    expect(await site.storedKeys()).toEqual([]);
    const right = await init({
      filename: "a.pdf",
      contentType: "application/pdf",
      size: 3000,
      checksumSha256: sha256(file),
    });
    expect((await site.send("PUT", right.transport.url, file)).status).toBe(204);
    expect((await site.call("POST", `/api/uploads/${right.id}/complete`, {})).status).toBe(201);
  });

  it("checks leading bytes against the declared type at complete, deleting the file and ending the session", async () => {
    site = await createFsMediaSite({ config });
    for (const [contentType, file] of [
      ["image/png", jpegFile(10, 10)],
      ["image/jpeg", pngFile(10, 10)],
      ["image/webp", pdfFile()],
      ["video/mp4", pngFile(10, 10)],
      ["audio/mp4", filler(100)],
    ] as const) {
      const { id, transport } = await init({ filename: "x", contentType, size: file.byteLength });
      expect((await site.send("PUT", transport.url, file)).status).toBe(204);
      const done = await site.call("POST", `/api/uploads/${id}/complete`, {});
      expectError(done, 400, "VALIDATION_ERROR", contentType);
      expect(await site.storedKeys()).toEqual([]);
      expect((await site.call("POST", `/api/uploads/${id}/complete`, {})).status).toBe(409);
    }
  });

  it("keeps client dimensions, reads missing ones from the header, and validates the details", async () => {
    site = await createFsMediaSite({ config });
    expect((await relayUpload(webpFile(300, 200), "image/webp", "w.webp")).width).toBe(300);
    const given = await relayUpload(pngFile(640, 480), "image/png", "p.png", { width: 64, height: 48 });
    expect(given).toMatchObject({ width: 64, height: 48 });
    const audio = await relayUpload(mp4File(), "audio/mp4", "song.m4a", {
      waveform: "0,1,2",
      durationSeconds: 12,
    });
    expect(audio).toMatchObject({
      mediaKind: "audio",
      width: null,
      waveform: "0,1,2",
      durationSeconds: 12,
    });
    const { id, transport } = await init({ filename: "p.png", contentType: "image/png", size: 2048 });
    await site.send("PUT", transport.url, pngFile(1, 1));
    for (const body of [
      { width: 0 },
      { height: -3 },
      { width: 1.5 },
      { durationSeconds: 12.5 },
      { blurhash: "b".repeat(201) },
      { waveform: "w".repeat(2001) },
      { summary: "s".repeat(501) },
      { chars: -1 },
    ]) {
      const response = await site.call("POST", `/api/uploads/${id}/complete`, body);
      expect(response.status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    const ok = await site.call("POST", `/api/uploads/${id}/complete`, {
      blurhash: "b".repeat(200),
      waveform: "w".repeat(2000),
      summary: "s".repeat(500),
      chars: 0,
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ width: 1, height: 1, chars: 0 });
  });

  it("answers 400 when completing before the body arrived, leaving the session open", async () => {
    site = await createFsMediaSite({ config });
    const file = pngFile(2, 2);
    const { id, transport } = await init({
      filename: "p.png",
      contentType: "image/png",
      size: file.byteLength,
    });
    expect((await site.call("POST", `/api/uploads/${id}/complete`, {})).status).toBe(400);
    expect((await site.send("PUT", transport.url, file)).status).toBe(204);
    expect((await site.call("POST", `/api/uploads/${id}/complete`, {})).status).toBe(201);
  });
});

describe("multipartRelay transport, end to end on local storage", () => {
  it("sends parts, completes with them, attaches, downloads and deletes", async () => {
    site = await createFsMediaSite({ config });
    const file = mp4File(100 * KiB);
    const { id, transport } = await init({
      filename: "clip.mp4",
      contentType: "video/mp4",
      size: file.byteLength,
      checksumSha256: sha256(file),
    });
    expect(transport.kind).toBe("multipartRelay");
    const partSize = transport.partSize as number;
    const parts: { partNumber: number; etag: string }[] = [];
    for (let n = 1; (n - 1) * partSize < file.byteLength; n++) {
      const body = file.subarray((n - 1) * partSize, n * partSize);
      const response = await site.send("PUT", `${transport.url}?partNumber=${n}`, body);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body).toEqual({ partNumber: n, etag: expect.any(String) });
      parts.push(response.body);
    }
    expect(parts).toHaveLength(4);
    const poster = webpFile(64, 36);
    expect(
      (await site.send("PUT", `/api/uploads/${id}/poster`, poster, { "content-type": "image/webp" })).status,
    ).toBe(204);
    const done = await site.call("POST", `/api/uploads/${id}/complete`, { parts, durationSeconds: 3 });
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect(done.body).toMatchObject({
      mediaKind: "video",
      mimeType: "video/mp4",
      size: file.byteLength,
      durationSeconds: 3,
      posterUrl: expect.stringMatching(/\/_poster\.webp$/),
    });
    const post = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "Clip",
      attachments: [{ type: "media", mediaId: done.body.id, alt: "A clip" }],
    });
    expect(post.body.attachments[0]).toMatchObject({
      id: done.body.id,
      posterUrl: done.body.posterUrl,
      alt: "A clip",
    });
    expect(await bytesOf(await site.download(done.body.url))).toEqual(file);
    expect(await bytesOf(await site.download(done.body.posterUrl))).toEqual(poster);
    expect((await site.call("DELETE", `/api/media/${done.body.id}`)).body).toEqual({ success: true });
    expect((await site.call("GET", `/api/posts/${post.body.id}`)).body.attachments).toEqual([]);
    expect(await site.storedKeys()).toEqual([]);
  });

  it("holds each part to its exact size and number, and complete to the parts as stored", async () => {
    site = await createFsMediaSite({ config });
    const file = mp4File(80 * KiB);
    const { id, transport } = await init({
      filename: "c.mp4",
      contentType: "video/mp4",
      size: file.byteLength,
    });
    const part = (n: number, body: Uint8Array) => site.send("PUT", `${transport.url}?partNumber=${n}`, body);
    expect((await part(1, file.subarray(0, 32 * KiB - 1))).status).toBe(400);
    expect((await part(1, file.subarray(0, 32 * KiB + 1))).status).toBe(400);
    expect((await part(4, file.subarray(0, 10))).status).toBe(400);
    expect((await part(0, file.subarray(0, 10))).status).toBe(400);
    expect((await site.send("PUT", transport.url, file.subarray(0, 10))).status).toBe(400);
    expect((await site.send("PUT", `/api/uploads/${id}/body`, file)).status).toBe(400);
    const p1 = (await part(1, file.subarray(0, 32 * KiB))).body;
    const p2 = (await part(2, file.subarray(32 * KiB, 64 * KiB))).body;
    expect((await part(3, file.subarray(64 * KiB, 80 * KiB - 1))).status).toBe(400);
    const p3 = (await part(3, file.subarray(64 * KiB))).body;
    const complete = (body: object) => site.call("POST", `/api/uploads/${id}/complete`, body);
    for (const body of [
      {},
      { parts: [p1, p2] },
      { parts: [p2, p1, p3] },
      { parts: [p1, p2, { ...p3, etag: '"0"' }] },
    ]) {
      const response = await complete(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    const done = await complete({ parts: [p1, p2, p3] });
    expect(done.status).toBe(201);
    expect(await bytesOf(await site.download(done.body.url))).toEqual(file);
  });

  it("verifies checksumSha256 at complete by reading the file back", async () => {
    site = await createFsMediaSite({ config });
    const file = mp4File(70 * KiB);
    const { id, transport } = await init({
      filename: "c.mp4",
      contentType: "video/mp4",
      size: file.byteLength,
      checksumSha256: sha256(filler(10)),
    });
    const p1 = (await site.send("PUT", `${transport.url}?partNumber=1`, file.subarray(0, 32 * KiB))).body;
    const p2 = (await site.send("PUT", `${transport.url}?partNumber=2`, file.subarray(32 * KiB, 64 * KiB)))
      .body;
    const p3 = (await site.send("PUT", `${transport.url}?partNumber=3`, file.subarray(64 * KiB))).body;
    const done = await site.call("POST", `/api/uploads/${id}/complete`, { parts: [p1, p2, p3] });
    expect(done.status).toBe(400);
    expect(done.body.details.fieldErrors.checksumSha256).toBeDefined();
    expect(await site.storedKeys()).toEqual([]);
  });
});

describe("poster frames", () => {
  it("take WebP for videos only", async () => {
    site = await createFsMediaSite({ config });
    const video = await init({ filename: "v.mp4", contentType: "video/mp4", size: 100 });
    const poster = (id: string, body: Uint8Array, type?: string) =>
      site.send("PUT", `/api/uploads/${id}/poster`, body, type ? { "content-type": type } : {});
    expect((await poster(video.id, pngFile(4, 4), "image/png")).status).toBe(400);
    expect((await poster(video.id, pngFile(4, 4))).status).toBe(400);
    expect(await site.storedKeys()).toEqual([]);
    expect((await poster(video.id, webpFile(4, 4))).status).toBe(204);
    const image = await init({ filename: "i.png", contentType: "image/png", size: 100 });
    expect((await poster(image.id, webpFile(4, 4))).status).toBe(400);
    expect((await site.call("POST", `/api/uploads/${video.id}/abort`)).body).toEqual({ success: true });
    expect(await site.storedKeys()).toEqual([]);
  });
});

describe("session states", () => {
  it("answers 409 for writes to completed or aborted sessions, 404 for unknown ones, 400 for bad IDs", async () => {
    site = await createFsMediaSite({ config });
    const file = pdfFile(100);
    const done = await init({ filename: "d.pdf", contentType: "application/pdf", size: 100 });
    await site.send("PUT", done.transport.url, file);
    expect((await site.call("POST", `/api/uploads/${done.id}/complete`, {})).status).toBe(201);
    const aborted = await init({ filename: "d.pdf", contentType: "application/pdf", size: 100 });
    await site.send("PUT", aborted.transport.url, file);
    expect((await site.call("POST", `/api/uploads/${aborted.id}/abort`)).body).toEqual({ success: true });
    for (const id of [done.id, aborted.id]) {
      for (const response of [
        await site.send("PUT", `/api/uploads/${id}/body`, file),
        await site.send("PUT", `/api/uploads/${id}/poster`, webpFile(2, 2)),
        await site.call("POST", `/api/uploads/${id}/complete`, {}),
        await site.call("POST", `/api/uploads/${id}/abort`),
      ]) {
        expectError(response, 409, "CONFLICT");
      }
    }
    expect((await site.storedKeys()).length).toBe(1);
    const unknown = "upl_01h2xcejqtf2nbrexx3vqjhp41";
    expect((await site.call("POST", `/api/uploads/${unknown}/complete`, {})).status).toBe(404);
    expect((await site.send("PUT", `/api/uploads/${unknown}/body`, file)).status).toBe(404);
    expect((await site.call("POST", "/api/uploads/med_01h2xcejqtf2nbrexx3vqjhp41/abort")).status).toBe(400);
    expect((await site.call("POST", "/api/uploads/nope/abort")).status).toBe(400);
  });

  it("expires after about 15 minutes without activity: writes answer 400, cleanup deletes the bytes", async () => {
    site = await createFsMediaSite({ config });
    const file = pdfFile(200);
    const idle = await init({ filename: "a.pdf", contentType: "application/pdf", size: 200 });
    await site.send("PUT", idle.transport.url, file);
    const busy = await init({ filename: "b.mp4", contentType: "video/mp4", size: 70 * KiB });
    site.clock.advance(10 * 60);
    expect((await site.send("PUT", `${busy.transport.url}?partNumber=3`, mp4File(6 * KiB))).status).toBe(200);
    site.clock.advance(6 * 60);
    // 16 minutes after init; the multipart relay was active 6 minutes ago.
    for (const response of [
      await site.send("PUT", idle.transport.url, file),
      await site.call("POST", `/api/uploads/${idle.id}/complete`, {}),
      await site.call("POST", `/api/uploads/${idle.id}/abort`),
    ]) {
      expectError(response, 400, "VALIDATION_ERROR");
    }
    expect((await site.send("PUT", `${busy.transport.url}?partNumber=2`, filler(32 * KiB))).status).toBe(200);
    expect(await site.engine.cleanupExpiredUploads()).toEqual({ expired: 1, removed: 0, swept: 0 });
    expect((await site.storedKeys()).filter((key) => !key.startsWith(".tmp/"))).toEqual([]);
    expect((await site.send("PUT", idle.transport.url, file)).status).toBe(400);
    site.clock.advance(15 * 60);
    // Lazy cleanup at init expires the multipart relay too, and aborts its multipart upload.
    await init({ filename: "c.pdf", contentType: "application/pdf", size: 1 });
    expect(await site.storedKeys()).toEqual([]);
    expect((await site.send("PUT", `${busy.transport.url}?partNumber=1`, filler(32 * KiB))).status).toBe(400);
    site.clock.advance(24 * 60 * 60);
    expect((await site.engine.cleanupExpiredUploads()).removed).toBe(2);
    expect((await site.send("PUT", idle.transport.url, file)).status).toBe(404);
  });
});

describe("types", () => {
  it("stores documents, text, archives and fonts as downloads, PDF inline", async () => {
    site = await createFsMediaSite({ config });
    const cases = [
      ["application/pdf", "Report 2024.pdf", "inline", "application/pdf", /report-2024\.pdf$/],
      ["text/plain", "notes.txt", "attachment", "text/plain; charset=utf-8", /notes\.txt$/],
      ["application/zip", "site.zip", "attachment", "application/zip", /site\.zip$/],
      ["font/woff2", "f.woff2", "attachment", "font/woff2", /f\.woff2$/],
      ["application/octet-stream", "design.fig", "attachment", "application/octet-stream", /design\.fig$/],
      ["text/html", "page.html", "attachment", "application/octet-stream", /page\.html$/],
      ["text/x-python", "script.py", "attachment", "application/octet-stream", /script\.py$/],
    ] as const;
    for (const [type, name, disposition, served, key] of cases) {
      const media = await relayUpload(filler(300), type, name);
      expect(media, type).toMatchObject({
        mediaKind: "document",
        mimeType: type,
        originalName: name,
        url: expect.stringMatching(key),
      });
      const response = await site.download(media.url);
      expect(response.headers.get("content-disposition")).toMatch(new RegExp(`^${disposition}`));
      expect(response.headers.get("content-type")).toBe(served);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });
});

describe("in process, through the engine's functions", () => {
  it("takes bodies as Node streams or any async iterable of byte chunks, and refuses text chunks", async () => {
    site = await createFsMediaSite({ config });
    const { engine } = site;
    const owner = { role: "owner" } as const;
    const upload = (filename: string, size: number) =>
      engine.uploads.init({ filename, contentType: "application/octet-stream", size }, owner);

    const file = filler(60 * KiB, 3);
    const relay = await upload("stream.bin", file.byteLength);
    const body = Readable.from([file.subarray(0, 1000), file.subarray(1000, 40_000), file.subarray(40_000)]);
    await engine.uploads.putBody({ id: relay.id, body }, owner);
    const media = await engine.uploads.complete({ id: relay.id }, owner);
    expect(media.size).toBe(file.byteLength);
    expect(await bytesOf(await site.download(media.url as string))).toEqual(file);

    // multipartRelay (file above the 64 KiB threshold, 32 KiB parts), each part an async generator
    const big = filler(100 * KiB, 4);
    const multipart = await upload("parts.bin", big.byteLength);
    expect(multipart.transport.kind).toBe("multipartRelay");
    const partSize = 32 * KiB;
    const parts = [];
    for (let n = 1; (n - 1) * partSize < big.byteLength; n++) {
      const slice = big.subarray((n - 1) * partSize, n * partSize);
      async function* halves() {
        yield slice.subarray(0, 100);
        yield slice.subarray(100);
      }
      parts.push(await engine.uploads.putPart({ id: multipart.id, partNumber: n, body: halves() }, owner));
    }
    const assembled = await engine.uploads.complete({ id: multipart.id, parts }, owner);
    expect(await bytesOf(await site.download(assembled.url as string))).toEqual(big);

    const text = await upload("text.bin", 5);
    await expect(
      engine.uploads.putBody({ id: text.id, body: Readable.from(["hello"]) }, owner),
    ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    await expect(engine.uploads.complete({ id: text.id }, owner)).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      details: { fieldErrors: { body: expect.any(Array) } },
    });
  });
});
