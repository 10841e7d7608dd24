import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bytesOf,
  createS3MediaSite,
  digestOf,
  filler,
  formBody,
  jpegFile,
  type MediaSite,
  MiB,
  mp4File,
  pdfFile,
  pngFile,
  type S3Server,
  sha256,
  startS3Server,
  webpFile,
} from "./uploads-fixtures.js";

/** S3 parts are at least 5 MiB, so the multipart relay here moves 11 MiB in three parts. */
const config = { uploadMultipartThreshold: 6 * MiB, uploadPartSize: 5 * MiB };

let server: S3Server;
let site: MediaSite;
beforeAll(async () => {
  server = await startS3Server();
});
afterAll(() => server?.close());

async function init(body: Record<string, unknown>) {
  const response = await site.call("POST", "/api/uploads/init", body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { id: string; transport: Record<string, unknown> & { url: string } };
}

/** Sends the file to a presigned URL exactly as the transport says. */
function putDirect(transport: Record<string, unknown>, file: Uint8Array<ArrayBuffer>): Promise<Response> {
  return fetch(transport.url as string, {
    method: transport.method as string,
    headers: transport.headers as Record<string, string>,
    body: file,
  });
}

describe("put transport on S3", () => {
  it("signs a direct PUT; the file goes to the store and round-trips through a post", async () => {
    site = await createS3MediaSite(server, { config });
    const file = pngFile(800, 600, 64 * 1024);
    const { id, transport } = await init({
      filename: "Direct.png",
      contentType: "image/png",
      size: file.byteLength,
      checksumSha256: sha256(file),
    });
    expect(transport).toEqual({
      kind: "put",
      url: expect.stringMatching(
        new RegExp(`^${server.endpoint}/${server.bucket}/media/.+/direct\\.png\\?.*X-Amz-Signature=`),
      ),
      method: "PUT",
      headers: {
        "content-type": "image/png",
        "content-length": String(file.byteLength),
        "content-disposition": 'inline; filename="direct.png"',
      },
      expiresAt: site.clock.now() + 15 * 60,
    });
    expect((await site.call("POST", `/api/uploads/${id}/complete`, {})).status).toBe(400);
    const put = await putDirect(transport, file);
    expect(put.ok).toBe(true);
    const done = await site.call("POST", `/api/uploads/${id}/complete`, { alt: "Direct" });
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect(done.body).toMatchObject({
      type: "media",
      mediaKind: "image",
      width: 800,
      height: 600,
      size: file.byteLength,
    });
    expect(done.body.url).toBe(
      `${server.endpoint}/${server.bucket}/${new URL(transport.url).pathname.split("/").slice(2).join("/")}`,
    );

    const post = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "S3",
      attachments: [{ type: "media", mediaId: done.body.id }],
    });
    const read = await site.call("GET", `/api/posts/${post.body.id}`);
    expect(read.body.attachments[0]).toMatchObject({ id: done.body.id, url: done.body.url });
    const download = await site.download(done.body.url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(download.headers.get("content-disposition")).toBe('inline; filename="direct.png"');
    expect(await bytesOf(download)).toEqual(file);
    expect((await site.call("DELETE", `/api/posts/${post.body.id}`)).body).toEqual({ success: true });
    expect(await site.storedKeys()).toEqual([]);
  });

  it("has the bucket serve documents as downloads and a PDF inline", async () => {
    site = await createS3MediaSite(server, { config });
    for (const [filename, contentType, file, disposition] of [
      ["Notes 2026.zip", "application/zip", filler(3000, 5), 'attachment; filename="notes-2026.zip"'],
      ["Paper.pdf", "application/pdf", pdfFile(), 'inline; filename="paper.pdf"'],
    ] as const) {
      const { id, transport } = await init({ filename, contentType, size: file.byteLength });
      expect((await putDirect(transport, file)).ok).toBe(true);
      const done = await site.call("POST", `/api/uploads/${id}/complete`, {});
      expect(done.status, JSON.stringify(done.body)).toBe(201);
      const download = await site.download(done.body.url);
      expect(download.headers.get("content-disposition")).toBe(disposition);
      expect(await bytesOf(download)).toEqual(file);
    }
  });

  it("checks the checksum and the leading bytes by reading the object back", async () => {
    site = await createS3MediaSite(server, { config });
    const file = pngFile(4, 4, 4096);
    const wrongSum = await init({
      filename: "a.png",
      contentType: "image/png",
      size: 4096,
      checksumSha256: sha256(filler(1)),
    });
    expect((await putDirect(wrongSum.transport, file)).ok).toBe(true);
    const refused = await site.call("POST", `/api/uploads/${wrongSum.id}/complete`, {});
    expect(refused.status).toBe(400);
    expect(refused.body.details.fieldErrors.checksumSha256).toBeDefined();
    expect(await site.storedKeys()).toEqual([]);

    const jpeg = jpegFile(4, 4, 4096);
    const wrongType = await init({ filename: "a.png", contentType: "image/png", size: 4096 });
    expect((await putDirect(wrongType.transport, jpeg)).ok).toBe(true);
    expect((await site.call("POST", `/api/uploads/${wrongType.id}/complete`, {})).status).toBe(400);
    expect(await site.storedKeys()).toEqual([]);
    expect((await site.call("POST", `/api/uploads/${wrongType.id}/complete`, {})).status).toBe(409);
  });

  it("takes a video poster through the relay beside a direct PUT; abort removes both", async () => {
    site = await createS3MediaSite(server, { config });
    const { id, transport } = await init({ filename: "v.mp4", contentType: "video/mp4", size: 8192 });
    expect((await putDirect(transport, mp4File(8192))).ok).toBe(true);
    expect((await site.send("PUT", `/api/uploads/${id}/poster`, webpFile(8, 8))).status).toBe(204);
    expect((await site.storedKeys()).length).toBe(2);
    expect((await site.call("POST", `/api/uploads/${id}/abort`)).body).toEqual({ success: true });
    expect(await site.storedKeys()).toEqual([]);
  });
});

describe("multipartRelay transport on S3", () => {
  it("relays 5 MiB parts into a native multipart upload, end to end", async () => {
    site = await createS3MediaSite(server, { config });
    const file = mp4File(11 * MiB);
    const { id, transport } = await init({
      filename: "long.mp4",
      contentType: "video/mp4",
      size: file.byteLength,
      checksumSha256: sha256(file),
    });
    expect(transport).toEqual({
      kind: "multipartRelay",
      method: "PUT",
      url: `/api/uploads/${id}/part`,
      partSize: 5 * MiB,
    });
    const parts = [];
    for (const [n, start, end] of [
      [1, 0, 5 * MiB],
      [2, 5 * MiB, 10 * MiB],
      [3, 10 * MiB, 11 * MiB],
    ] as const) {
      const response = await site.send("PUT", `${transport.url}?partNumber=${n}`, file.subarray(start, end), {
        "content-length": String(end - start),
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      parts.push(response.body);
    }
    const done = await site.call("POST", `/api/uploads/${id}/complete`, { parts });
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    expect(done.body).toMatchObject({ mediaKind: "video", size: 11 * MiB });
    const post = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "Long",
      attachments: [{ type: "media", mediaId: done.body.id }],
    });
    expect((await site.call("GET", `/api/posts/${post.body.id}`)).body.attachments[0].id).toBe(done.body.id);
    const download = await site.download(done.body.url);
    expect(download.headers.get("content-disposition")).toBe('inline; filename="long.mp4"');
    expect(await digestOf(download)).toBe(sha256(file));
    expect((await site.call("DELETE", `/api/media/${done.body.id}`)).body).toEqual({ success: true });
    expect(await site.storedKeys()).toEqual([]);
  });

  it("aborts the store's multipart upload on abort", async () => {
    site = await createS3MediaSite(server, { config });
    const { id, transport } = await init({
      filename: "x.bin",
      contentType: "application/zip",
      size: 7 * MiB,
    });
    expect((await site.send("PUT", `${transport.url}?partNumber=2`, filler(2 * MiB))).status).toBe(200);
    expect((await site.storedKeys()).length).toBeGreaterThan(0);
    expect((await site.call("POST", `/api/uploads/${id}/abort`)).body).toEqual({ success: true });
    expect(await site.storedKeys()).toEqual([]);
  });
});

describe("relay transport on S3 (a store that does not presign)", () => {
  it("relays the body into the store, end to end", async () => {
    site = await createS3MediaSite(server, { config, presign: false });
    const file = pngFile(12, 34, 200 * 1024);
    const { id, transport } = await init({
      filename: "r.png",
      contentType: "image/png",
      size: file.byteLength,
    });
    expect(transport).toEqual({ kind: "relay", method: "PUT", url: `/api/uploads/${id}/body` });
    expect((await site.send("PUT", transport.url, file)).status).toBe(204);
    const done = await site.call("POST", `/api/uploads/${id}/complete`, {});
    expect(done.body).toMatchObject({ width: 12, height: 34, size: file.byteLength });
    const post = await site.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "Relay",
      attachments: [{ type: "media", mediaId: done.body.id }],
    });
    expect((await site.call("GET", `/api/posts/${post.body.id}`)).body.attachments[0].id).toBe(done.body.id);
    expect(await digestOf(await site.download(done.body.url))).toBe(sha256(file));
    expect((await site.call("DELETE", `/api/posts/${post.body.id}`)).body).toEqual({ success: true });
    expect(await site.storedKeys()).toEqual([]);
  });
});

describe("one-shot upload on S3", () => {
  it("streams the form's file into the store", async () => {
    site = await createS3MediaSite(server, { config });
    const file = jpegFile(50, 60, 6 * MiB + 17);
    const { body, contentType } = formBody([
      { name: "file", filename: "big.jpg", type: "image/jpeg", data: file },
    ]);
    const response = await site.send("POST", "/api/upload", body, { "content-type": contentType });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toMatchObject({ width: 50, height: 60, size: file.byteLength });
    expect(await digestOf(await site.download(response.body.url))).toBe(sha256(file));
    expect((await site.call("DELETE", `/api/media/${response.body.id}`)).status).toBe(200);
    expect(await site.storedKeys()).toEqual([]);
  });
});
