/** How many leading bytes {@link matchesSignature} needs. */
export const signatureLength = 12;

/**
 * True when a file's leading bytes fit its declared media type: JPEG `FF D8 FF`, the PNG signature,
 * `RIFF....WEBP`, or an MP4 `ftyp` box at offset 4 (video and `audio/mp4`). Other types have no
 * signature to check and always match.
 */
export function matchesSignature(mimeType: string, head: Uint8Array): boolean {
  switch (mimeType) {
    case "image/jpeg":
      return startsWith(head, 0, [0xff, 0xd8, 0xff]);
    case "image/png":
      return startsWith(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case "image/webp":
      return startsWith(head, 0, ascii("RIFF")) && startsWith(head, 8, ascii("WEBP"));
    case "video/mp4":
    case "audio/mp4":
      return startsWith(head, 4, ascii("ftyp"));
    default:
      return true;
  }
}

function startsWith(bytes: Uint8Array, offset: number, expected: number[]): boolean {
  if (bytes.byteLength < offset + expected.length) return false;
  return expected.every((byte, i) => bytes[offset + i] === byte);
}

function ascii(text: string): number[] {
  return [...text].map((char) => char.charCodeAt(0));
}
