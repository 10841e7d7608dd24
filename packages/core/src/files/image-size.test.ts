import { describe, expect, it } from "vitest";
import { matchesSignature } from "./file-signature.js";
import { readImageSize } from "./image-size.js";

const be16 = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const be32 = (n: number) => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const le16 = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const le24 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];
const le32 = (n: number) => [...le16(n & 0xffff), ...le16(n >>> 16)];
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

function png(width: number, height: number): Uint8Array {
  return Uint8Array.from([
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
  ]);
}

function segment(marker: number, payload: number[]): number[] {
  return [0xff, marker, ...be16(payload.length + 2), ...payload];
}

function jpeg(
  width: number,
  height: number,
  options: { orientation?: number; sof?: number; padding?: number } = {},
) {
  const exif = options.orientation
    ? segment(0xe1, [
        ...ascii("Exif"),
        0,
        0,
        ...ascii("MM"),
        0,
        42,
        ...be32(8),
        ...be16(1),
        ...be16(0x0112),
        ...be16(3),
        ...be32(1),
        ...be16(options.orientation),
        0,
        0,
        ...be32(0),
      ])
    : [];
  return Uint8Array.from([
    0xff,
    0xd8,
    ...segment(0xe0, [...ascii("JFIF"), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...exif,
    ...segment(0xfe, new Array(options.padding ?? 0).fill(0x20)),
    ...segment(0xdb, new Array(65).fill(1)),
    0xff,
    0xff, // a fill byte before the marker
    ...segment(options.sof ?? 0xc0, [
      8,
      ...be16(height),
      ...be16(width),
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
    ]),
    0xff,
    0xd9,
  ]);
}

function webp(chunk: string, payload: number[]): Uint8Array {
  const body = [...ascii("WEBP"), ...ascii(chunk), ...le32(payload.length), ...payload];
  return Uint8Array.from([...ascii("RIFF"), ...le32(body.length), ...body]);
}

describe("readImageSize", () => {
  it("reads PNG dimensions from IHDR", () => {
    expect(readImageSize(png(640, 480))).toEqual({ width: 640, height: 480 });
    expect(readImageSize(png(1, 70000))).toEqual({ width: 1, height: 70000 });
  });

  it("reads JPEG dimensions from baseline and progressive start-of-frame markers", () => {
    expect(readImageSize(jpeg(1024, 768))).toEqual({ width: 1024, height: 768 });
    expect(readImageSize(jpeg(300, 200, { sof: 0xc2 }))).toEqual({ width: 300, height: 200 });
  });

  it("swaps JPEG axes for EXIF orientations 5 to 8, not for 1 to 4", () => {
    expect(readImageSize(jpeg(4000, 3000, { orientation: 6 }))).toEqual({ width: 3000, height: 4000 });
    expect(readImageSize(jpeg(4000, 3000, { orientation: 8 }))).toEqual({ width: 3000, height: 4000 });
    expect(readImageSize(jpeg(4000, 3000, { orientation: 3 }))).toEqual({ width: 4000, height: 3000 });
  });

  it("answers null for a JPEG cut before its frame header", () => {
    const whole = jpeg(800, 600, { padding: 2000 });
    expect(readImageSize(whole)).toEqual({ width: 800, height: 600 });
    expect(readImageSize(whole.subarray(0, 1000))).toBeNull();
  });

  it("reads lossy, lossless and extended WebP", () => {
    const vp8 = webp("VP8 ", [0x30, 0x01, 0x00, 0x9d, 0x01, 0x2a, ...le16(320), ...le16(240), 0, 0]);
    expect(readImageSize(vp8)).toEqual({ width: 320, height: 240 });
    const bits = (400 - 1) | ((300 - 1) << 14);
    const vp8l = webp("VP8L", [0x2f, ...le32(bits), 0, 0, 0, 0, 0]);
    expect(readImageSize(vp8l)).toEqual({ width: 400, height: 300 });
    const vp8x = webp("VP8X", [0x10, 0, 0, 0, ...le24(5000 - 1), ...le24(2000 - 1)]);
    expect(readImageSize(vp8x)).toEqual({ width: 5000, height: 2000 });
  });

  it("answers null for anything else", () => {
    expect(readImageSize(new Uint8Array(0))).toBeNull();
    expect(readImageSize(Uint8Array.from(ascii("GIF89a")))).toBeNull();
    expect(readImageSize(png(0, 10))).toBeNull();
    expect(readImageSize(png(10, 10).subarray(0, 20))).toBeNull();
    expect(readImageSize(webp("ALPH", new Array(20).fill(0)))).toBeNull();
  });
});

describe("matchesSignature", () => {
  const mp4 = Uint8Array.from([0, 0, 0, 24, ...ascii("ftypisom"), 0, 0, 2, 0]);
  it("checks the leading bytes of declared media types", () => {
    expect(matchesSignature("image/png", png(1, 1))).toBe(true);
    expect(matchesSignature("image/jpeg", jpeg(1, 1))).toBe(true);
    expect(matchesSignature("image/webp", webp("VP8X", new Array(10).fill(0)))).toBe(true);
    expect(matchesSignature("video/mp4", mp4)).toBe(true);
    expect(matchesSignature("audio/mp4", mp4)).toBe(true);
    expect(matchesSignature("image/jpeg", png(1, 1))).toBe(false);
    expect(matchesSignature("image/png", jpeg(1, 1))).toBe(false);
    expect(matchesSignature("image/webp", Uint8Array.from(ascii("RIFF....WAVE")))).toBe(false);
    expect(matchesSignature("video/mp4", png(1, 1))).toBe(false);
    expect(matchesSignature("image/png", new Uint8Array(3))).toBe(false);
  });

  it("has nothing to check for documents", () => {
    expect(matchesSignature("application/pdf", new Uint8Array(0))).toBe(true);
  });
});
