import { slugify } from "../shared/slug.js";

/** The storage keys of one media item: its file, and the poster frame of a video. */
export interface MediaKeys {
  file: string;
  poster: string;
}

/**
 * Keys the engine generates for a media item: `media/<yyyy>/<mm>/<med_id>/<name>.<ext>`, where
 * the name is a slug of the uploaded file name (so downloads and URLs read well) and the extension
 * is the one its type decides; a slug never starts with `_`, so `_poster.webp` is the poster's
 * alone. No part of a key is a client's path. @see docs/media.md § Storage keys
 */
export function mediaKeys(input: {
  mediaId: string;
  filename: string;
  extension: string;
  now: number;
}): MediaKeys {
  const date = new Date(input.now * 1000);
  const folder = `media/${date.getUTCFullYear()}/${String(date.getUTCMonth() + 1).padStart(2, "0")}/${input.mediaId}`;
  const stem = input.filename.trim().replace(/\.[A-Za-z0-9]{1,10}$/, "");
  const name = slugify(stem, 60) || "file";
  const file = `${folder}/${name}.${input.extension}`;
  return { file, poster: posterKeyOf(file) };
}

/** The poster key that goes with a media file's key (its folder's `_poster.webp`). */
export function posterKeyOf(fileKey: string): string {
  return `${fileKey.slice(0, fileKey.lastIndexOf("/"))}/_poster.webp`;
}
