import { deflateSync, Zip, type ZipInputFile, ZipPassThrough } from "fflate";

/** One file of a ZIP: text (compressed) or bytes read from a stream (stored as they are). */
export interface ZipEntry {
  /** The path inside the archive, `/`-separated. */
  name: string;
  text?: string;
  bytes?: AsyncIterable<Uint8Array>;
  /** Modification time, Unix seconds. */
  mtime?: number;
}

/**
 * A ZIP file written as its entries arrive (fflate's streaming `Zip`, with data descriptors): it
 * yields each piece as soon as it is made, so memory holds one entry's chunk, never the archive.
 * Media bytes are stored uncompressed (they are compressed formats already); text is deflated.
 */
export async function* zipEntries(
  entries: AsyncIterable<ZipEntry>,
): AsyncGenerator<Uint8Array, void, undefined> {
  const encoder = new TextEncoder();
  let out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((err, chunk) => {
    if (err) failure = err;
    else out.push(chunk);
  });
  const drain = function* (): Generator<Uint8Array> {
    if (failure) throw failure;
    const pieces = out;
    out = [];
    yield* pieces;
  };
  for await (const entry of entries) {
    const mtime = entry.mtime !== undefined ? new Date(entry.mtime * 1000) : undefined;
    if (entry.bytes) {
      const file = new ZipPassThrough(entry.name);
      if (mtime) file.mtime = mtime;
      zip.add(file);
      for await (const chunk of entry.bytes) {
        file.push(chunk);
        yield* drain();
      }
      file.push(new Uint8Array(0), true);
    } else {
      // Deflated whole here, not through fflate's ZipDeflate: the Zip keeps every added file object
      // for its central directory, and a ZipDeflate holds its compressor's buffers (hundreds of KB
      // each), which made memory grow with the number of entries.
      const raw = encoder.encode(entry.text ?? "");
      const file: ZipInputFile = { filename: entry.name, size: raw.length, crc: crc32(raw), compression: 8 };
      if (mtime) file.mtime = mtime;
      zip.add(file);
      file.ondata?.(null, deflateSync(raw, { level: 6 }), true);
    }
    yield* drain();
  }
  zip.end();
  yield* drain();
}

const crcTable = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** The CRC-32 a ZIP entry records of its uncompressed bytes. */
function crc32(bytes: Uint8Array): number {
  let crc = -1;
  for (let i = 0; i < bytes.length; i++)
    crc = (crcTable[(crc ^ (bytes[i] as number)) & 255] as number) ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
