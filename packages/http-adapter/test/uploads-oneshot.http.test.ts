import { describe, expect, it } from "vitest";
import { expectError } from "./helpers.js";
import {
  bytesOf,
  createFsMediaSite,
  filler,
  formBody,
  jpegFile,
  KiB,
  type MediaSite,
  mp4File,
  pngFile,
  webpFile,
} from "./uploads-fixtures.js";

let site: MediaSite;

async function upload(entries: Parameters<typeof formBody>[0]) {
  const { body, contentType } = formBody(entries);
  return site.send("POST", "/api/upload", body, { "content-type": contentType });
}

describe("POST /api/upload (one-shot)", () => {
  it("stores the file and answers 201 with the media record, fields before or after the file", async () => {
    site = await createFsMediaSite();
    const file = jpegFile(1200, 800, 40 * KiB);
    const response = await upload([
      { name: "alt", value: "  A harbour  " },
      { name: "file", filename: "harbour.jpg", type: "image/jpeg", data: file },
      { name: "blurhash", value: "LKO2?U%2Tw=w" },
      { name: "summary", value: "" },
    ]);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^med_/),
      postId: null,
      type: "media",
      mediaKind: "image",
      mimeType: "image/jpeg",
      originalName: "harbour.jpg",
      size: file.byteLength,
      width: 1200,
      height: 800,
      durationSeconds: null,
      alt: "A harbour",
      blurhash: "LKO2?U%2Tw=w",
      waveform: null,
      summary: null,
      chars: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      url: expect.stringMatching(/\/harbour\.jpg$/),
      previewUrl: response.body.url,
      posterUrl: null,
    });
    expect(await bytesOf(await site.download(response.body.url))).toEqual(file);
    expect((await site.call("GET", `/api/media/${response.body.id}`)).body).toEqual(response.body);
  });

  it("takes a video with its WebP poster, dimensions and duration given as text", async () => {
    site = await createFsMediaSite();
    const response = await upload([
      { name: "poster", filename: "poster.webp", type: "image/webp", data: webpFile(160, 90) },
      { name: "file", filename: "clip.mp4", type: "video/mp4", data: mp4File(30 * KiB) },
      { name: "width", value: "1920" },
      { name: "height", value: "1080" },
      { name: "durationSeconds", value: "42" },
    ]);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toMatchObject({
      mediaKind: "video",
      width: 1920,
      height: 1080,
      durationSeconds: 42,
    });
    expect(response.body.posterUrl).toMatch(/\/_poster\.webp$/);
    expect((await site.download(response.body.posterUrl)).headers.get("content-type")).toBe("image/webp");
    // The spec types the field as an integer: a fractional duration is refused, nothing stored.
    const stored = await site.storedKeys();
    const fractional = await upload([
      { name: "file", filename: "clip.mp4", type: "video/mp4", data: mp4File(KiB) },
      { name: "durationSeconds", value: "1.5" },
    ]);
    expect(fractional.status).toBe(400);
    expect(fractional.body.details.fieldErrors).toHaveProperty("durationSeconds");
    expect(await site.storedKeys()).toEqual(stored);
  });

  it("keeps file names beyond Latin-1 as browsers send them (raw UTF-8 in the part header)", async () => {
    site = await createFsMediaSite();
    for (const filename of ["日本.png", "cat 🐈.png", "Ünïcödé.png"]) {
      const response = await upload([{ name: "file", filename, type: "image/png", data: pngFile(2, 2) }]);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.originalName).toBe(filename);
    }
  });

  it("reads a poster and fields that follow the file, after the file has streamed", async () => {
    site = await createFsMediaSite();
    const response = await upload([
      { name: "width", value: "640" },
      { name: "file", filename: "clip.mp4", type: "video/mp4", data: mp4File(20 * KiB) },
      { name: "poster", filename: "poster.webp", type: "image/webp", data: webpFile(16, 9) },
      { name: "height", value: "360" },
      { name: "width", value: "1" },
    ]);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    // The first value of a field wins, whether it came before the file or after it.
    expect(response.body).toMatchObject({ mediaKind: "video", width: 640, height: 360 });
    expect(response.body.posterUrl).toMatch(/\/_poster\.webp$/);
    const twoPosters = await upload([
      { name: "poster", filename: "a.webp", type: "image/webp", data: webpFile(16, 9) },
      { name: "file", filename: "clip.mp4", type: "video/mp4", data: mp4File(20 * KiB) },
      { name: "poster", filename: "b.webp", type: "image/webp", data: webpFile(16, 9) },
    ]);
    expect(twoPosters.status).toBe(400);
    expect(twoPosters.body.details.fieldErrors).toHaveProperty("poster");
    expect(await site.storedKeys()).toHaveLength(2);
  });

  it("answers 400 and keeps nothing for a bad form", async () => {
    site = await createFsMediaSite({ config: { uploadMaxBytes: 64 * KiB } });
    const png = pngFile(10, 10);
    const cases: [string, Parameters<typeof formBody>[0]][] = [
      ["no file", [{ name: "alt", value: "x" }]],
      ["file as text", [{ name: "file", value: "x" }]],
      ["unsupported image", [{ name: "file", filename: "a.gif", type: "image/gif", data: filler(100) }]],
      [
        "unsupported video",
        [{ name: "file", filename: "a.mov", type: "video/quicktime", data: filler(100) }],
      ],
      [
        "bad width after the file",
        [
          { name: "file", filename: "a.png", type: "image/png", data: png },
          { name: "width", value: "wide" },
        ],
      ],
      [
        "zero height",
        [
          { name: "height", value: "0" },
          { name: "file", filename: "a.png", type: "image/png", data: png },
        ],
      ],
      [
        "long alt",
        [
          { name: "file", filename: "a.png", type: "image/png", data: png },
          { name: "alt", value: "a".repeat(501) },
        ],
      ],
      ["wrong bytes", [{ name: "file", filename: "a.png", type: "image/png", data: jpegFile(2, 2) }]],
      [
        "over the limit",
        [{ name: "file", filename: "big.pdf", type: "application/pdf", data: filler(64 * KiB + 1) }],
      ],
      [
        "poster for an image",
        [
          { name: "poster", filename: "p.webp", type: "image/webp", data: webpFile(2, 2) },
          { name: "file", filename: "a.png", type: "image/png", data: png },
        ],
      ],
      [
        "poster not WebP",
        [
          { name: "file", filename: "v.mp4", type: "video/mp4", data: mp4File() },
          { name: "poster", filename: "p.png", type: "image/png", data: png },
        ],
      ],
      [
        "two files",
        [
          { name: "file", filename: "a.png", type: "image/png", data: png },
          { name: "file", filename: "b.png", type: "image/png", data: png },
        ],
      ],
      [
        "unnamed file",
        [{ name: "file", filename: "", type: "application/octet-stream", data: new Uint8Array(0) }],
      ],
    ];
    for (const [label, entries] of cases) {
      const response = await upload(entries);
      expectError(response, 400, "VALIDATION_ERROR", label);
      expect(await site.storedKeys(), label).toEqual([]);
    }
    expect((await site.call("GET", "/api/media")).body.media).toEqual([]);
  });

  it("answers 400 for bodies that are not multipart/form-data or are cut off", async () => {
    site = await createFsMediaSite();
    expect(
      (await site.send("POST", "/api/upload", pngFile(2, 2), { "content-type": "image/png" })).status,
    ).toBe(400);
    expect(
      (await site.send("POST", "/api/upload", null, { "content-type": "multipart/form-data" })).status,
    ).toBe(400);
    const { body, contentType } = formBody([
      { name: "file", filename: "a.pdf", type: "application/pdf", data: filler(5000) },
    ]);
    const cut = await site.send("POST", "/api/upload", body.subarray(0, 3000), {
      "content-type": contentType,
    });
    expect(cut.status).toBe(400);
    expect(await site.storedKeys()).toEqual([]);
  });

  it("ignores unknown fields and files", async () => {
    site = await createFsMediaSite();
    const response = await upload([
      { name: "extra", filename: "x.bin", type: "application/octet-stream", data: filler(10_000) },
      { name: "whatever", value: "1" },
      { name: "file", filename: "n.txt", type: "text/plain", data: filler(10) },
    ]);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ mediaKind: "document", mimeType: "text/plain" });
    expect((await site.storedKeys()).length).toBe(1);
  });

  it("is callable in-process with the bytes, their name and type, as values", async () => {
    site = await createFsMediaSite();
    const record = await site.engine.media.upload({
      file: pngFile(7, 9),
      filename: "p.png",
      contentType: "image/png",
      alt: "Tiny",
    });
    expect(record).toMatchObject({ type: "media", width: 7, height: 9, alt: "Tiny" });
    // Base64 text is how JSON (an MCP tool call) carries the same bytes.
    const fromText = await site.engine.media.upload({
      file: Buffer.from(pngFile(3, 4)).toString("base64"),
      filename: "q.png",
      contentType: "image/png",
      width: 3,
    });
    expect(fromText).toMatchObject({ type: "media", mimeType: "image/png", width: 3, height: 4 });
    for (const bad of [
      { filename: "x.png" },
      { file: "not base64!", filename: "x.png" },
      { file: pngFile(1, 1), filename: "x.png", width: "3" },
    ]) {
      const error = await site.engine.media.upload(bad as never).catch((err: unknown) => err);
      expect(error, JSON.stringify(Object.keys(bad))).toMatchObject({ code: "VALIDATION_ERROR" });
    }
    expect(await site.storedKeys()).toHaveLength(2);
  });
});
