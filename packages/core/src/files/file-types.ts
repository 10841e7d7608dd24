import { invalidField } from "../errors.js";
import type { MediaKind } from "./media-kinds.js";

/** What the engine makes of a declared content type. @see spec § Uploads, docs/media.md § Types */
export interface FileType {
  /** The normalised type stored on the media record (lowercase, no parameters). */
  mimeType: string;
  mediaKind: Exclude<MediaKind, "text">;
  /** The type given to the store, which is what a public bucket serves. */
  storageContentType: string;
  /** The file name extension of the storage key (without the dot). */
  extension: string;
}

/** The image, video and audio types the engine accepts, with their key extension. */
const mediaTypes: Record<string, { kind: "image" | "video" | "audio"; extension: string }> = {
  "image/jpeg": { kind: "image", extension: "jpg" },
  "image/png": { kind: "image", extension: "png" },
  "image/webp": { kind: "image", extension: "webp" },
  "video/mp4": { kind: "video", extension: "mp4" },
  "audio/mp4": { kind: "audio", extension: "m4a" },
};

/** Spellings some clients send for an accepted type. */
const aliases: Record<string, string> = { "image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg" };

/** Canonical extensions of common download types, so the key says what the file is. */
const documentExtensions: Record<string, string> = {
  "application/pdf": "pdf",
  "application/zip": "zip",
  "application/gzip": "gz",
  "application/json": "json",
  "application/epub+zip": "epub",
  "application/msword": "doc",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.ms-excel": "xls",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.ms-powerpoint": "ppt",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.oasis.opendocument.text": "odt",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/csv": "csv",
  "font/woff2": "woff2",
  "font/woff": "woff",
  "font/ttf": "ttf",
  "font/otf": "otf",
};

/**
 * Types a browser would run as a page or script if a public bucket served them as declared; they
 * are stored as `application/octet-stream` (the record keeps the declared type).
 */
const activeTypes = new Set([
  "text/html",
  "application/xhtml+xml",
  "text/xml",
  "application/xml",
  "text/javascript",
  "application/javascript",
  "application/ecmascript",
  "text/ecmascript",
  "application/x-javascript",
]);

/** The type each key extension is served with: the inverse of the tables above. */
const typeByExtension: Record<string, string> = Object.fromEntries([
  ...Object.entries(mediaTypes).map(([type, { extension }]) => [extension, type]),
  ...Object.entries(documentExtensions).map(([type, extension]) => [extension, type]),
  ["jpeg", "image/jpeg"],
]);

/** Images, video, audio and PDF open in the browser; everything else downloads. @see spec § Uploads */
const inlineExtensions = new Set([...Object.values(mediaTypes).map((type) => type.extension), "jpeg", "pdf"]);

/** How a stored file is served: its content type and whether it opens inline or downloads. */
export interface FileServing {
  contentType: string;
  inline: boolean;
  /** `inline` or `attachment`, with the key's file name. */
  contentDisposition: string;
}

/**
 * How to serve the object under `key`, from the key's extension (the engine gives every key the
 * extension of its type): unknown extensions are `application/octet-stream` downloads, and text
 * types carry `charset=utf-8`. @see docs/media.md § Serving files
 */
export function servingOf(key: string): FileServing {
  const extension = /\.([a-z0-9]+)$/i.exec(key)?.[1]?.toLowerCase() ?? "";
  const type = Object.hasOwn(typeByExtension, extension)
    ? (typeByExtension[extension] as string)
    : "application/octet-stream";
  const inline = inlineExtensions.has(extension);
  const name = key.slice(key.lastIndexOf("/") + 1).replace(/["\\]/g, "_");
  return {
    contentType: type.startsWith("text/") ? `${type}; charset=utf-8` : type,
    inline,
    contentDisposition: `${inline ? "inline" : "attachment"}; filename="${name}"`,
  };
}

const tokenPattern = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/**
 * Classifies a declared content type for an upload of `filename`. JPEG, PNG, WebP, MP4 video and
 * `audio/mp4` are media; any other `image/*`, `video/*` or `audio/*` type is a 400; everything
 * else (documents, text, archives, fonts, design files, code) is a `document` served as a download.
 * @see spec § Uploads, § Errors condition 6
 */
export function classifyFileType(contentType: string, filename: string): FileType {
  const essence = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (!tokenPattern.test(essence))
    throw invalidField("contentType", "Expected a media type such as image/jpeg");
  const mimeType = aliases[essence] ?? essence;
  const media = mediaTypes[mimeType];
  if (media)
    return { mimeType, mediaKind: media.kind, storageContentType: mimeType, extension: media.extension };
  const topLevel = mimeType.slice(0, mimeType.indexOf("/"));
  if (topLevel === "image" || topLevel === "video" || topLevel === "audio") {
    throw invalidField(
      "contentType",
      `Unsupported ${topLevel} type ${mimeType}: images must be JPEG, PNG or WebP, video MP4, audio audio/mp4`,
    );
  }
  return {
    mimeType,
    mediaKind: "document",
    storageContentType: activeTypes.has(mimeType) ? "application/octet-stream" : mimeType,
    extension: documentExtensions[mimeType] ?? downloadExtension(filename),
  };
}

/** The extension of an uploaded file name, unless it would make the file open inline; else `bin`. */
function downloadExtension(filename: string): string {
  const extension = /\.([A-Za-z0-9]{1,10})$/.exec(filename.trim())?.[1]?.toLowerCase();
  return extension && !inlineExtensions.has(extension) ? extension : "bin";
}

/** True for the kinds whose leading bytes must match the declared type. */
export function hasSignature(kind: FileType["mediaKind"]): boolean {
  return kind !== "document";
}
