import { Zip, ZipDeflate, ZipPassThrough } from "fflate";

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
      const file = new ZipDeflate(entry.name, { level: 6 });
      if (mtime) file.mtime = mtime;
      zip.add(file);
      file.push(encoder.encode(entry.text ?? ""), true);
    }
    yield* drain();
  }
  zip.end();
  yield* drain();
}
