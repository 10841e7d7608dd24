/** Pixel dimensions as a viewer shows them (JPEG EXIF rotations applied). */
export interface ImageSize {
  width: number;
  height: number;
}

/**
 * Reads the dimensions of a JPEG, PNG or WebP from the leading bytes of the file (the header, not
 * the pixels). Null when the bytes are not such an image or end before the dimensions do — for a
 * JPEG, the start-of-frame marker can sit behind large metadata, so give it enough bytes.
 */
export function readImageSize(bytes: Uint8Array): ImageSize | null {
  if (bytes[0] === 0x89 && bytes[1] === 0x50) return readPngSize(bytes);
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return readJpegSize(bytes);
  if (text(bytes, 0, 4) === "RIFF" && text(bytes, 8, 4) === "WEBP") return readWebpSize(bytes);
  return null;
}

/** The IHDR chunk comes first: width and height as big-endian 32-bit integers at 16 and 20. */
function readPngSize(bytes: Uint8Array): ImageSize | null {
  if (bytes.byteLength < 24 || text(bytes, 12, 4) !== "IHDR") return null;
  const view = viewOf(bytes);
  return positive(view.getUint32(16), view.getUint32(20));
}

/** Start-of-frame markers carry the size; DHT (C4), JPG (C8) and DAC (CC) share the range but do not. */
const startOfFrame = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** Walks the marker segments to the first start-of-frame, noting the EXIF orientation on the way. */
function readJpegSize(bytes: Uint8Array): ImageSize | null {
  const view = viewOf(bytes);
  let orientation = 1;
  let offset = 2;
  while (offset + 4 <= bytes.byteLength) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1] as number;
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end of image, or scan data before any frame
    const length = view.getUint16(offset + 2);
    if (length < 2) return null;
    if (startOfFrame.has(marker)) {
      if (offset + 9 > bytes.byteLength) return null;
      const height = view.getUint16(offset + 5);
      const width = view.getUint16(offset + 7);
      return orientation >= 5 && orientation <= 8 ? positive(height, width) : positive(width, height);
    }
    if (marker === 0xe1 && offset + 2 + length <= bytes.byteLength) {
      orientation = exifOrientation(bytes.subarray(offset + 4, offset + 2 + length)) ?? orientation;
    }
    offset += 2 + length;
  }
  return null;
}

/** The orientation tag (0x0112) of IFD0 in an APP1 `Exif\0\0` payload; 5 to 8 swap the axes. */
function exifOrientation(payload: Uint8Array): number | null {
  if (text(payload, 0, 6) !== "Exif\0\0") return null;
  const tiff = payload.subarray(6);
  if (tiff.byteLength < 8) return null;
  const view = viewOf(tiff);
  const order = text(tiff, 0, 2);
  if (order !== "II" && order !== "MM") return null;
  const little = order === "II";
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > tiff.byteLength) return null;
  const entries = view.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.byteLength) return null;
    if (view.getUint16(entry, little) === 0x0112) return view.getUint16(entry + 8, little);
  }
  return null;
}

/** The first chunk after `RIFF....WEBP` is VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function readWebpSize(bytes: Uint8Array): ImageSize | null {
  if (bytes.byteLength < 30) return null;
  const view = viewOf(bytes);
  switch (text(bytes, 12, 4)) {
    case "VP8 ":
      if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return null;
      return positive(view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
    case "VP8L": {
      if (bytes[20] !== 0x2f) return null;
      const bits = view.getUint32(21, true);
      return positive((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
    case "VP8X":
      return positive(uint24(bytes, 24) + 1, uint24(bytes, 27) + 1);
    default:
      return null;
  }
}

function positive(width: number, height: number): ImageSize | null {
  return width > 0 && height > 0 ? { width, height } : null;
}

function uint24(bytes: Uint8Array, offset: number): number {
  return (
    (bytes[offset] as number) | ((bytes[offset + 1] as number) << 8) | ((bytes[offset + 2] as number) << 16)
  );
}

function text(bytes: Uint8Array, offset: number, length: number): string {
  if (bytes.byteLength < offset + length) return "";
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
