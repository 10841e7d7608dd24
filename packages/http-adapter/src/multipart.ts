import { type ByteSource, chunksOf, EngineError } from "@quire/core";
import { ContentCodingRefused } from "./request-body.js";

/** One part of a `multipart/form-data` body: a text field, or a file whose bytes stream. */
export type FormDataPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; body: AsyncIterable<Uint8Array> };

/** Bounds that keep a hostile form from costing memory. File bodies are never buffered. */
export interface MultipartLimits {
  /** Largest header block of one part (default 8 KiB). */
  maxHeaderBytes?: number;
  /** Largest text field (default 64 KiB). */
  maxFieldBytes?: number;
  /** Most parts in one form (default 100). */
  maxParts?: number;
}

const CR = 0x0d;
const LF = 0x0a;
const HYPHEN = 0x2d;
const encoder = new TextEncoder();

/** The boundary of a `multipart/form-data` content type; 400 for any other type. */
export function formDataBoundary(contentType: string | null): string {
  const match = /^\s*multipart\/form-data\s*;(.*)$/i.exec(contentType ?? "");
  const boundary = match && /(?:^|;)\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(match[1] as string);
  if (!boundary) throw malformed("Expected a multipart/form-data body with a boundary");
  return (boundary[1] ?? boundary[2]) as string;
}

/**
 * Parses a `multipart/form-data` stream part by part, pulling from the source only as the reader
 * asks. A file part's `body` streams its bytes; it must be read (or cancelled) before the next part
 * is asked for — moving on discards whatever is left of it. Text fields (parts without a
 * `filename`) are read whole, up to `maxFieldBytes`. Malformed input fails with a 400 EngineError,
 * in the iteration or in a file body. Ending the iteration early cancels the source.
 */
export async function* parseFormData(
  source: ByteSource,
  boundary: string,
  limits: MultipartLimits = {},
): AsyncGenerator<FormDataPart, void, undefined> {
  const parser = new FormDataParser(source, boundary, limits);
  try {
    let count = 0;
    for (;;) {
      const headers = await parser.nextPartHeaders();
      if (headers === null) return;
      if (++count > (limits.maxParts ?? 100)) throw malformed("Too many parts in the form");
      const disposition = parseDisposition(headers.get("content-disposition") ?? null);
      if (disposition.filename === undefined) {
        yield { name: disposition.name, value: await parser.readField(limits.maxFieldBytes ?? 64 * 1024) };
      } else {
        yield {
          name: disposition.name,
          filename: disposition.filename,
          contentType: headers.get("content-type") ?? "application/octet-stream",
          body: parser.bodyChunks(),
        };
      }
    }
  } finally {
    await parser.close();
  }
}

/** Where the parser stands: before the first boundary, in a part's body, just past a delimiter, or done. */
type ParserState = "preamble" | "body" | "delimiter" | "done";

/** The pull-driven state machine behind {@link parseFormData}. */
class FormDataParser {
  private readonly chunks: AsyncGenerator<Uint8Array, void, undefined>;
  /** `CRLF--boundary`: what ends every part body (a CRLF is put before the first boundary). */
  private readonly delimiter: Uint8Array;
  private readonly maxHeaderBytes: number;
  private buffer: Uint8Array = Uint8Array.of(CR, LF);
  private offset = 0;
  private sourceDone = false;
  private state: ParserState = "preamble";
  /** Counts parts, so a body stream kept past its part reads nothing of the next one. */
  private part = 0;

  constructor(source: ByteSource, boundary: string, limits: MultipartLimits) {
    this.chunks = chunksOf(source);
    this.delimiter = encoder.encode(`\r\n--${boundary}`);
    this.maxHeaderBytes = limits.maxHeaderBytes ?? 8 * 1024;
  }

  /** Moves past the current part (or the preamble) and reads the next part's headers; null at the end. */
  async nextPartHeaders(): Promise<Map<string, string> | null> {
    while ((await this.readBodyChunk()) !== null) {
      // discard what the reader left of the previous part (or the preamble)
    }
    if (this.state === "done") return null;
    // After a delimiter: `--` closes the form; otherwise optional padding, then CRLF.
    await this.need(2);
    if (this.buffer[this.offset] === HYPHEN && this.buffer[this.offset + 1] === HYPHEN) {
      this.state = "done";
      return null;
    }
    const lineEnd = await this.find(Uint8Array.of(CR, LF), this.maxHeaderBytes);
    if (!/^[ \t]*$/.test(this.text(this.offset, lineEnd)))
      throw malformed("Malformed multipart boundary line");
    this.offset = lineEnd + 2;
    await this.need(2);
    let block = "";
    if (this.buffer[this.offset] === CR && this.buffer[this.offset + 1] === LF) {
      this.offset += 2;
    } else {
      const end = await this.find(Uint8Array.of(CR, LF, CR, LF), this.maxHeaderBytes);
      block = this.text(this.offset, end);
      this.offset = end + 4;
    }
    this.state = "body";
    this.part++;
    return parseHeaderBlock(block);
  }

  /** The current part's body as text, up to `maxBytes`. */
  async readField(maxBytes: number): Promise<string> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (let chunk = await this.readBodyChunk(); chunk !== null; chunk = await this.readBodyChunk()) {
      size += chunk.byteLength;
      if (size > maxBytes) throw malformed(`A form field is longer than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    return new TextDecoder().decode(joinChunks(chunks, size));
  }

  /** The current part's body, read from the source only as it is iterated; empty once the parser moved on. */
  async *bodyChunks(): AsyncGenerator<Uint8Array, void, undefined> {
    const part = this.part;
    while (part === this.part) {
      const chunk = await this.readBodyChunk();
      if (chunk === null) return;
      yield chunk;
    }
  }

  /**
   * The next piece of the current body (or preamble), or null at its delimiter. Bytes that could
   * be the start of a delimiter split across chunks are held back until the next chunk decides;
   * usually there are none, so the next chunk is used as it came, not copied onto them.
   */
  async readBodyChunk(): Promise<Uint8Array | null> {
    if (this.state !== "body" && this.state !== "preamble") return null;
    for (;;) {
      const at = indexOf(this.buffer, this.delimiter, this.offset);
      if (at >= 0) {
        const chunk = this.buffer.subarray(this.offset, at);
        this.offset = at + this.delimiter.byteLength;
        this.state = "delimiter";
        return chunk.byteLength > 0 ? chunk : null;
      }
      const safeEnd = this.buffer.byteLength - partialMatchAtEnd(this.buffer, this.offset, this.delimiter);
      if (safeEnd > this.offset) {
        const chunk = this.buffer.subarray(this.offset, safeEnd);
        this.offset = safeEnd;
        return chunk;
      }
      if (!(await this.fill())) throw malformed("The form ended before its closing boundary");
    }
  }

  async close(): Promise<void> {
    if (!this.sourceDone) await this.chunks.return().catch(() => {});
  }

  /** Reads until `pattern` appears within `limit` bytes of the offset; returns its index. */
  private async find(pattern: Uint8Array, limit: number): Promise<number> {
    for (;;) {
      const at = indexOf(this.buffer, pattern, this.offset);
      if (at >= 0 && at - this.offset <= limit) return at;
      if (this.buffer.byteLength - this.offset > limit + pattern.byteLength) {
        throw malformed("A multipart header is too long");
      }
      if (!(await this.fill())) throw malformed("The form ended inside a part header");
    }
  }

  private async need(bytes: number): Promise<void> {
    while (this.buffer.byteLength - this.offset < bytes) {
      if (!(await this.fill())) throw malformed("The form ended before its closing boundary");
    }
  }

  /** Appends the next source chunk to what is left of the buffer; false at the end of the source. */
  private async fill(): Promise<boolean> {
    if (this.sourceDone) return false;
    let result: IteratorResult<Uint8Array, void>;
    try {
      result = await this.chunks.next();
    } catch (err) {
      this.sourceDone = true;
      // A body refused before any of it was read (a content coding) keeps its own answer.
      if (err instanceof ContentCodingRefused) throw err;
      throw malformed("The request body ended before the form did");
    }
    if (result.done) {
      this.sourceDone = true;
      return false;
    }
    const rest = this.buffer.subarray(this.offset);
    if (rest.byteLength === 0) {
      this.buffer = result.value;
    } else {
      const joined = new Uint8Array(rest.byteLength + result.value.byteLength);
      joined.set(rest);
      joined.set(result.value, rest.byteLength);
      this.buffer = joined;
    }
    this.offset = 0;
    return true;
  }

  private text(start: number, end: number): string {
    return new TextDecoder().decode(this.buffer.subarray(start, end));
  }
}

/**
 * The length of the longest end of `bytes` (from `from` on) that begins `pattern` without
 * completing it: where a pattern split across two chunks may start. 0 for most chunks of binary
 * data, which end with anything but a prefix of the pattern.
 */
export function partialMatchAtEnd(bytes: Uint8Array, from: number, pattern: Uint8Array): number {
  const longest = Math.min(pattern.byteLength - 1, bytes.byteLength - from);
  for (let length = longest; length > 0; length--) {
    const start = bytes.byteLength - length;
    let at = 0;
    while (at < length && bytes[start + at] === pattern[at]) at++;
    if (at === length) return length;
  }
  return 0;
}

/** Node's Buffer, when the runtime has one: its `indexOf` searches natively (and much faster). */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/** The first index of `pattern` in `bytes` at or after `from`, or -1. */
export function indexOf(bytes: Uint8Array, pattern: Uint8Array, from: number): number {
  if (!NodeBuffer) return searchBytes(bytes, pattern, from);
  return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(pattern, from);
}

/** {@link indexOf} for runtimes without Buffer: a native scan for the first byte, then a compare. */
export function searchBytes(bytes: Uint8Array, pattern: Uint8Array, from: number): number {
  const first = pattern[0] as number;
  const last = bytes.byteLength - pattern.byteLength;
  for (let at = bytes.indexOf(first, from); at !== -1 && at <= last; at = bytes.indexOf(first, at + 1)) {
    let i = 1;
    while (i < pattern.byteLength && bytes[at + i] === pattern[i]) i++;
    if (i === pattern.byteLength) return at;
  }
  return -1;
}

/**
 * A part's headers by lower-case name. Not the Fetch `Headers` class: that takes only byte strings
 * (U+0000–U+00FF), while browsers send a part's `filename` as raw UTF-8 (`日本.png`), per the HTML
 * form-submission algorithm, which is decoded here as UTF-8 like the rest of the header block.
 */
/** `size` bytes of chunks, joined into one array. */
export function joinChunks(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

function parseHeaderBlock(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) throw malformed("Malformed multipart header");
    const value = line.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  return headers;
}

/** `form-data; name="x"; filename="y"` (quoted or bare values, `filename*` in RFC 5987 form). */
function parseDisposition(header: string | null): { name: string; filename: string | undefined } {
  const params = new Map<string, string>();
  const [kind, ...rest] = splitParams(header ?? "");
  if (kind?.trim().toLowerCase() !== "form-data")
    throw malformed("A form part lacks Content-Disposition: form-data");
  for (const param of rest) {
    const eq = param.indexOf("=");
    if (eq <= 0) continue;
    const key = param.slice(0, eq).trim().toLowerCase();
    let value = param.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
      value = value.slice(1, -1).replace(/\\(.)/g, "$1");
    }
    params.set(key, value);
  }
  const name = params.get("name");
  if (name === undefined) throw malformed("A form part has no name");
  const extended = params.get("filename*");
  return { name, filename: (extended && decodeExtended(extended)) ?? params.get("filename") };
}

/** Splits on `;` outside quoted strings. */
function splitParams(header: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const char = header[i] as string;
    if (char === "\\" && quoted) {
      current += char + (header[i + 1] ?? "");
      i++;
    } else if (char === '"') {
      quoted = !quoted;
      current += char;
    } else if (char === ";" && !quoted) {
      parts.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

/** `UTF-8''na%C3%AFve.txt` → `naïve.txt`; undefined when unreadable. */
function decodeExtended(value: string): string | undefined {
  const match = /^([\w-]+)'[^']*'(.*)$/.exec(value);
  if (!match || (match[1] as string).toLowerCase() !== "utf-8") return undefined;
  try {
    return decodeURIComponent(match[2] as string);
  } catch {
    return undefined;
  }
}

function malformed(message: string): EngineError {
  return new EngineError("VALIDATION_ERROR", message);
}
