import { describe, expect, it } from "vitest";
import { EngineError } from "../errors.js";
import { classifyFileType, servingOf } from "./file-types.js";
import { mediaKeys, posterKeyOf } from "./storage-keys.js";

describe("classifyFileType", () => {
  it("accepts JPEG, PNG, WebP, MP4 video and audio/mp4 as media, with their extensions", () => {
    expect(classifyFileType("image/jpeg", "a.jpeg")).toEqual({
      mimeType: "image/jpeg",
      mediaKind: "image",
      storageContentType: "image/jpeg",
      extension: "jpg",
    });
    expect(classifyFileType("IMAGE/PNG; charset=binary", "x")).toMatchObject({
      mimeType: "image/png",
      extension: "png",
    });
    expect(classifyFileType("image/jpg", "x")).toMatchObject({ mimeType: "image/jpeg", mediaKind: "image" });
    expect(classifyFileType("image/webp", "x")).toMatchObject({ mediaKind: "image", extension: "webp" });
    expect(classifyFileType("video/mp4", "x.mov")).toMatchObject({ mediaKind: "video", extension: "mp4" });
    expect(classifyFileType("audio/mp4", "x")).toMatchObject({ mediaKind: "audio", extension: "m4a" });
  });

  it("answers 400 for any other image, video or audio type, and for unreadable types", () => {
    for (const type of [
      "image/gif",
      "image/svg+xml",
      "image/heic",
      "video/quicktime",
      "video/webm",
      "audio/mpeg",
      "audio/x-m4a",
      "text",
      "",
      "a/b/c",
    ]) {
      expect(() => classifyFileType(type, "f"), type).toThrow(EngineError);
    }
  });

  it("takes everything else as a downloadable document", () => {
    expect(classifyFileType("application/pdf", "r.PDF")).toMatchObject({
      mediaKind: "document",
      extension: "pdf",
    });
    expect(classifyFileType("text/plain", "notes")).toMatchObject({
      mediaKind: "document",
      extension: "txt",
    });
    expect(classifyFileType("application/octet-stream", "design.sketch")).toMatchObject({
      mediaKind: "document",
      storageContentType: "application/octet-stream",
      extension: "sketch",
    });
    expect(classifyFileType("font/woff2", "f.woff2").extension).toBe("woff2");
    expect(classifyFileType("application/x-tar", "a").extension).toBe("bin");
  });

  it("never lets a download borrow an inline extension or be stored as an active type", () => {
    expect(classifyFileType("application/octet-stream", "trick.pdf").extension).toBe("bin");
    expect(classifyFileType("application/octet-stream", "trick.jpg").extension).toBe("bin");
    expect(classifyFileType("text/html", "page.html")).toMatchObject({
      mimeType: "text/html",
      storageContentType: "application/octet-stream",
      extension: "html",
    });
    expect(classifyFileType("application/javascript", "a.js").storageContentType).toBe(
      "application/octet-stream",
    );
  });
});

describe("mediaKeys", () => {
  it("files a media item under its month and ID with a slug of its name", () => {
    const keys = mediaKeys({
      mediaId: "med_1",
      filename: "  Été à Paris (1).JPG ",
      extension: "jpg",
      now: 1_700_000_000,
    });
    expect(keys).toEqual({
      file: "media/2023/11/med_1/ete-a-paris-1.jpg",
      poster: "media/2023/11/med_1/_poster.webp",
    });
    expect(mediaKeys({ mediaId: "med_2", filename: "../../etc/passwd", extension: "bin", now: 0 }).file).toBe(
      "media/1970/01/med_2/etc-passwd.bin",
    );
    expect(mediaKeys({ mediaId: "med_3", filename: "…", extension: "pdf", now: 0 }).file).toBe(
      "media/1970/01/med_3/file.pdf",
    );
    expect(posterKeyOf("media/2023/11/med_1/clip.mp4")).toBe("media/2023/11/med_1/_poster.webp");
  });
});

describe("servingOf", () => {
  it("serves accepted media and PDF inline with their type, everything else as a download", () => {
    const served = (key: string, contentType: string, disposition: string) =>
      expect(servingOf(key)).toEqual({
        contentType,
        inline: disposition.startsWith("inline"),
        contentDisposition: disposition,
      });
    served("media/2026/11/med_x/photo.jpg", "image/jpeg", 'inline; filename="photo.jpg"');
    served("a/clip.mp4", "video/mp4", 'inline; filename="clip.mp4"');
    served("a/song.m4a", "audio/mp4", 'inline; filename="song.m4a"');
    served("a/paper.PDF", "application/pdf", 'inline; filename="paper.PDF"');
    served("attachments/med_x.md", "text/markdown; charset=utf-8", 'attachment; filename="med_x.md"');
    served("a/archive.zip", "application/zip", 'attachment; filename="archive.zip"');
    served("a/unknown.xyz", "application/octet-stream", 'attachment; filename="unknown.xyz"');
    served("a/no-extension", "application/octet-stream", 'attachment; filename="no-extension"');
    served('a/we"ird\\name.zip', "application/zip", 'attachment; filename="we_ird_name.zip"');
    // An extension spelled like an object's own member is unknown too (it read Object.prototype's).
    served("a/x.constructor", "application/octet-stream", 'attachment; filename="x.constructor"');
  });

  it("agrees with classifyFileType: a classified upload is served with its storage type", () => {
    for (const [type, name] of [
      ["image/png", "a.png"],
      ["application/pdf", "a.pdf"],
      ["font/woff2", "a.woff2"],
      ["text/csv", "a.csv"],
    ] as const) {
      const file = classifyFileType(type, name);
      expect(servingOf(`k/file.${file.extension}`).contentType.split(";")[0]).toBe(file.storageContentType);
    }
  });
});
