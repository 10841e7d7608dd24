import { deflateSync } from "fflate";

/** One file of a ZIP: text (compressed) or bytes read from a stream (stored as they are). */
export interface ZipEntry {
  /** The path inside the archive, `/`-separated. */
  name: string;
  text?: string;
  bytes?: AsyncIterable<Uint8Array>;
  /** Modification time, Unix seconds. */
  mtime?: number;
}

const max32 = 0xffffffff;
/** Text entries shorter than this are stored, not deflated. */
const minDeflateBytes = 2048;

/**
 * A ZIP file written as its entries arrive: each piece is yielded as soon as it is made, so memory
 * holds one entry's bytes plus the central directory (about 100 bytes per entry), never the
 * archive. Text of 2 KiB or more is deflated (fflate's `deflateSync`), shorter text stored; media bytes are stored as they are (they are
 * compressed formats already), streamed with a data descriptor after them. ZIP64 records are
 * written when the archive needs them (more than 65,535 entries, or past 4 GiB), which a site of
 * 100k posts does. One entry is at most 4 GiB.
 *
 * Written by hand rather than with fflate's `Zip`: that keeps every added file object (with
 * closures) until the end, which grew by about 3 KB per entry, and it writes no ZIP64 records.
 * yazl and archiver do write ZIP64, but both are built on Node's streams, Buffer and zlib, and
 * core runs on any runtime with web streams (Workers, Deno, Bun); the format part kept here is
 * headers, CRC and the central directory (APPNOTE 6.3.x § 4.3, § 4.5.3 for ZIP64).
 */
export async function* zipEntries(
  entries: AsyncIterable<ZipEntry>,
): AsyncGenerator<Uint8Array, void, undefined> {
  const encoder = new TextEncoder();
  const directory = new ChunkList();
  let offset = 0;
  let count = 0;
  for await (const entry of entries) {
    const name = encoder.encode(entry.name);
    const { time, date } = dosTime(entry.mtime);
    const start = offset;
    if (entry.bytes) {
      const header = localHeader(name, {
        flags: 0x0808,
        method: 0,
        time,
        date,
        crc: 0,
        compressed: 0,
        size: 0,
      });
      yield header;
      offset += header.length;
      let crc = -1;
      let size = 0;
      for await (const chunk of entry.bytes) {
        crc = crcUpdate(crc, chunk);
        size += chunk.length;
        yield chunk;
      }
      if (size > max32)
        throw new Error(`${entry.name} is larger than 4 GiB, more than a ZIP entry holds here`);
      offset += size;
      const descriptor = new Uint8Array(16);
      const view = new DataView(descriptor.buffer);
      view.setUint32(0, 0x08074b50, true);
      view.setUint32(4, (crc ^ -1) >>> 0, true);
      view.setUint32(8, size, true);
      view.setUint32(12, size, true);
      yield descriptor;
      offset += descriptor.length;
      directory.push(
        centralHeader(name, {
          flags: 0x0808,
          method: 0,
          time,
          date,
          crc: (crc ^ -1) >>> 0,
          compressed: size,
          size,
          offset: start,
        }),
      );
    } else {
      const raw = encoder.encode(entry.text ?? "");
      // Small pages are stored: deflating them gains a few hundred bytes and costs most of the
      // export's time and garbage (each deflateSync allocates its compressor's tables afresh).
      const deflate = raw.length >= minDeflateBytes;
      const packed = deflate ? deflateSync(raw, { level: 6 }) : raw;
      const fields = {
        flags: 0x0800,
        method: deflate ? 8 : 0,
        time,
        date,
        crc: crc32(raw),
        compressed: packed.length,
        size: raw.length,
      };
      const header = localHeader(name, fields);
      yield header;
      yield packed;
      offset += header.length + packed.length;
      directory.push(centralHeader(name, { ...fields, offset: start }));
    }
    count += 1;
  }
  const directoryOffset = offset;
  for (const chunk of directory.chunks()) {
    yield chunk;
    offset += chunk.length;
  }
  const directorySize = offset - directoryOffset;
  const zip64 = count > 0xffff || directoryOffset > max32 || directorySize > max32;
  if (zip64) {
    const record = new Uint8Array(56 + 20);
    const view = new DataView(record.buffer);
    view.setUint32(0, 0x06064b50, true);
    view.setBigUint64(4, 44n, true);
    view.setUint16(12, 45, true);
    view.setUint16(14, 45, true);
    view.setBigUint64(24, BigInt(count), true);
    view.setBigUint64(32, BigInt(count), true);
    view.setBigUint64(40, BigInt(directorySize), true);
    view.setBigUint64(48, BigInt(directoryOffset), true);
    // The locator: where the ZIP64 end record starts.
    view.setUint32(56, 0x07064b50, true);
    view.setBigUint64(64, BigInt(offset), true);
    view.setUint32(72, 1, true);
    yield record;
  }
  const end = new Uint8Array(22);
  const view = new DataView(end.buffer);
  view.setUint32(0, 0x06054b50, true);
  view.setUint16(8, Math.min(count, 0xffff), true);
  view.setUint16(10, Math.min(count, 0xffff), true);
  view.setUint32(12, Math.min(directorySize, max32), true);
  view.setUint32(16, Math.min(directoryOffset, max32), true);
  yield end;
}

interface EntryFields {
  flags: number;
  method: number;
  time: number;
  date: number;
  crc: number;
  compressed: number;
  size: number;
}

function localHeader(name: Uint8Array, fields: EntryFields): Uint8Array {
  const header = new Uint8Array(30 + name.length);
  const view = new DataView(header.buffer);
  view.setUint32(0, 0x04034b50, true);
  view.setUint16(4, 20, true);
  view.setUint16(6, fields.flags, true);
  view.setUint16(8, fields.method, true);
  view.setUint16(10, fields.time, true);
  view.setUint16(12, fields.date, true);
  view.setUint32(14, fields.crc, true);
  view.setUint32(18, fields.compressed, true);
  view.setUint32(22, fields.size, true);
  view.setUint16(26, name.length, true);
  header.set(name, 30);
  return header;
}

function centralHeader(name: Uint8Array, fields: EntryFields & { offset: number }): Uint8Array {
  const far = fields.offset > max32;
  const header = new Uint8Array(46 + name.length + (far ? 12 : 0));
  const view = new DataView(header.buffer);
  view.setUint32(0, 0x02014b50, true);
  view.setUint16(4, 45, true);
  view.setUint16(6, far ? 45 : 20, true);
  view.setUint16(8, fields.flags, true);
  view.setUint16(10, fields.method, true);
  view.setUint16(12, fields.time, true);
  view.setUint16(14, fields.date, true);
  view.setUint32(16, fields.crc, true);
  view.setUint32(20, fields.compressed, true);
  view.setUint32(24, fields.size, true);
  view.setUint16(28, name.length, true);
  view.setUint16(30, far ? 12 : 0, true);
  view.setUint32(42, far ? max32 : fields.offset, true);
  header.set(name, 46);
  if (far) {
    // ZIP64 extended information: the local header's offset, which the 32-bit field cannot hold.
    view.setUint16(46 + name.length, 0x0001, true);
    view.setUint16(48 + name.length, 8, true);
    view.setBigUint64(50 + name.length, BigInt(fields.offset), true);
  }
  return header;
}

/** Bytes gathered in 64 KiB blocks (the central directory), so 100k entries are not 100k objects. */
class ChunkList {
  private blocks: Uint8Array[] = [];
  private current = new Uint8Array(64 * 1024);
  private used = 0;

  push(bytes: Uint8Array): void {
    if (this.used + bytes.length > this.current.length) {
      this.blocks.push(this.current.subarray(0, this.used));
      this.current = new Uint8Array(Math.max(64 * 1024, bytes.length));
      this.used = 0;
    }
    this.current.set(bytes, this.used);
    this.used += bytes.length;
  }

  chunks(): Uint8Array[] {
    return [...this.blocks, this.current.subarray(0, this.used)];
  }
}

/** MS-DOS time and date (two seconds' precision, 1980 onwards), in UTC. */
function dosTime(seconds: number | undefined): { time: number; date: number } {
  const d = new Date((seconds ?? 315532800) * 1000);
  const year = Math.max(1980, d.getUTCFullYear());
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
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

function crcUpdate(crc: number, bytes: Uint8Array): number {
  let c = crc;
  for (let i = 0; i < bytes.length; i++)
    c = (crcTable[(c ^ (bytes[i] as number)) & 255] as number) ^ (c >>> 8);
  return c;
}

/** The CRC-32 a ZIP entry records of its uncompressed bytes. */
function crc32(bytes: Uint8Array): number {
  return (crcUpdate(-1, bytes) ^ -1) >>> 0;
}
