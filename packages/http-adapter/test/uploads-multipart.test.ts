import { EngineError } from "@quire/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type FormDataPart,
  formDataBoundary,
  indexOf,
  parseFormData,
  searchBytes,
} from "../src/multipart.js";

const encoder = new TextEncoder();
const BOUNDARY = "----quireBoundary7MA4YWxk";

type Entry =
  | { name: string; value: string }
  | { name: string; filename: string; type?: string; data: Uint8Array };

/** Encodes a form the way browsers do (CRLF line ends, final `--boundary--`). */
function encodeForm(
  entries: Entry[],
  boundary = BOUNDARY,
  extras: { preamble?: string; epilogue?: string } = {},
) {
  const pieces: Uint8Array[] = [encoder.encode(extras.preamble ?? "")];
  for (const entry of entries) {
    const disposition =
      "filename" in entry
        ? `form-data; name="${entry.name}"; filename="${entry.filename}"\r\nContent-Type: ${entry.type ?? "application/octet-stream"}`
        : `form-data; name="${entry.name}"`;
    pieces.push(encoder.encode(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    pieces.push("filename" in entry ? entry.data : encoder.encode(entry.value));
    pieces.push(encoder.encode("\r\n"));
  }
  pieces.push(encoder.encode(`--${boundary}--\r\n${extras.epilogue ?? ""}`));
  return concat(pieces);
}

function concat(pieces: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.byteLength;
  }
  return out;
}

/** A stream giving `bytes` in chunks of the given sizes (cycled), counting pulls. */
function chunked(bytes: Uint8Array, sizes: number[] = [bytes.byteLength || 1]) {
  let offset = 0;
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= bytes.byteLength) return controller.close();
        const size = Math.max(1, sizes[pulls++ % sizes.length] as number);
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulls: () => pulls, offset: () => offset };
}

/** Reads every part, files to bytes. */
async function collect(stream: ReadableStream<Uint8Array>, boundary = BOUNDARY) {
  const out: (FormDataPart | { name: string; filename: string; contentType: string; bytes: Uint8Array })[] =
    [];
  for await (const part of parseFormData(stream, boundary)) {
    if ("value" in part) out.push(part);
    else out.push({ ...part, bytes: await bytesOf(part.body) } as never);
  }
  return out;
}

async function bytesOf(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return new Uint8Array(Buffer.concat(chunks));
}

async function errorCode(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (err) {
    return err instanceof EngineError ? err.code : `not an EngineError: ${String(err)}`;
  }
  return "OK";
}

describe("formDataBoundary", () => {
  it("reads bare and quoted boundaries, and refuses other types with a 400", () => {
    expect(formDataBoundary(`multipart/form-data; boundary=${BOUNDARY}`)).toBe(BOUNDARY);
    expect(formDataBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b:c"')).toBe("a b:c");
    for (const type of [null, "application/json", "multipart/form-data", "multipart/mixed; boundary=x"]) {
      expect(() => formDataBoundary(type)).toThrow(EngineError);
    }
  });
});

describe("parseFormData", () => {
  it("yields text fields and streaming files in order", async () => {
    const data = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) & 0xff);
    const form = encodeForm([
      { name: "alt", value: "A café — ünïcode" },
      { name: "file", filename: "photo.jpg", type: "image/jpeg", data },
      { name: "width", value: "640" },
    ]);
    const parts = await collect(chunked(form).stream);
    expect(parts).toEqual([
      { name: "alt", value: "A café — ünïcode" },
      {
        name: "file",
        filename: "photo.jpg",
        contentType: "image/jpeg",
        body: expect.anything(),
        bytes: data,
      },
      { name: "width", value: "640" },
    ]);
  });

  it("gives the same parts however the body is cut into chunks", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 400 }),
        fc.string({ maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 8 }),
        async (data, text, sizes) => {
          // Bytes that look like the start of a delimiter must come through untouched.
          const tricky = concat([data, encoder.encode(`\r\n--${BOUNDARY.slice(0, 9)}\r\n-`), data]);
          const form = encodeForm(
            [
              { name: "a", value: text },
              { name: "file", filename: "f.bin", data: tricky },
              { name: "empty", filename: "e.bin", data: new Uint8Array(0) },
            ],
            BOUNDARY,
            { preamble: "ignored preamble\r\n", epilogue: "ignored epilogue" },
          );
          const parts = await collect(chunked(form, sizes).stream);
          expect(parts.map((part) => part.name)).toEqual(["a", "file", "empty"]);
          expect(parts[0]).toEqual({ name: "a", value: text });
          expect((parts[1] as { bytes: Uint8Array }).bytes).toEqual(tricky);
          expect((parts[2] as { bytes: Uint8Array }).bytes).toEqual(new Uint8Array(0));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("streams a file part: the source is read only as the file is", async () => {
    const data = new Uint8Array(1024 * 1024).fill(7);
    const source = chunked(encodeForm([{ name: "file", filename: "big.bin", data }]), [16 * 1024]);
    const parts = parseFormData(source.stream, BOUNDARY);
    const first = await parts.next();
    const file = first.value as Extract<FormDataPart, { body: unknown }>;
    const chunks = file.body[Symbol.asyncIterator]();
    await chunks.next();
    expect(source.offset()).toBeLessThan(64 * 1024);
    let total = 0;
    for (let chunk = await chunks.next(); !chunk.done; chunk = await chunks.next())
      total += chunk.value.byteLength;
    expect(total).toBeGreaterThan(1000 * 1024);
    expect((await parts.next()).done).toBe(true);
  });

  it("discards an unread file body when the next part is asked for", async () => {
    const form = encodeForm([
      { name: "skip", filename: "s.bin", data: new Uint8Array(50_000).fill(1) },
      { name: "after", value: "yes" },
    ]);
    const parts = parseFormData(chunked(form, [777]).stream, BOUNDARY);
    const skipped = (await parts.next()).value as Extract<FormDataPart, { body: unknown }>;
    expect((await parts.next()).value).toEqual({ name: "after", value: "yes" });
    // The old body now reads as ended, not as the next part's bytes.
    expect((await bytesOf(skipped.body)).byteLength).toBe(0);
  });

  it("reads quoted names with escapes and RFC 5987 file names", async () => {
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="na\\"me;.txt"; filename*=UTF-8''%C3%A9t%C3%A9.txt\r\n\r\nx\r\n`;
    const head2 = `--${BOUNDARY}\r\ncontent-disposition: form-data; name="q\\"uote"\r\n\r\nv\r\n--${BOUNDARY}--`;
    const parts = await collect(chunked(encoder.encode(head + head2)).stream);
    expect(parts[0]).toMatchObject({
      name: "file",
      filename: "été.txt",
      contentType: "application/octet-stream",
    });
    expect(parts[1]).toEqual({ name: 'q"uote', value: "v" });
  });

  it("answers 400 for malformed forms", async () => {
    const cases: [string, Uint8Array, object?][] = [
      ["no closing boundary", encodeForm([{ name: "a", value: "b" }]).subarray(0, 60)],
      ["no boundary at all", encoder.encode("just some text")],
      [
        "no disposition",
        encoder.encode(`--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n--${BOUNDARY}--`),
      ],
      [
        "no name",
        encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${BOUNDARY}--`),
      ],
      ["garbage after boundary", encoder.encode(`--${BOUNDARY}xyz\r\n\r\nx\r\n--${BOUNDARY}--`)],
      [
        "header too long",
        encoder.encode(`--${BOUNDARY}\r\nX-Long: ${"a".repeat(10_000)}\r\n\r\nx\r\n--${BOUNDARY}--`),
      ],
      ["field too long", encodeForm([{ name: "a", value: "x".repeat(70_000) }])],
      ["too many parts", encodeForm(Array.from({ length: 101 }, () => ({ name: "a", value: "b" })))],
    ];
    for (const [label, bytes] of cases) {
      expect(await errorCode(() => collect(chunked(bytes, [1000]).stream)), label).toBe("VALIDATION_ERROR");
    }
  });

  it("fails a file body with a 400 when the form is cut off inside it", async () => {
    const form = encodeForm([{ name: "file", filename: "f", data: new Uint8Array(5000) }]).subarray(0, 3000);
    expect(await errorCode(() => collect(chunked(form, [512]).stream))).toBe("VALIDATION_ERROR");
  });

  it("cancels the source when the reader stops early", async () => {
    let cancelled = false;
    const form = encodeForm([
      { name: "a", value: "1" },
      { name: "b", value: "2" },
    ]);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(form.subarray(0, 120));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const part of parseFormData(stream, BOUNDARY)) {
      expect(part).toEqual({ name: "a", value: "1" });
      break;
    }
    expect(cancelled).toBe(true);
  });
});

describe("indexOf and its portable searchBytes", () => {
  it("agree on any bytes, pattern and start", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }).map((bytes) => bytes.map((byte) => byte % 4)),
        fc.uint8Array({ minLength: 1, maxLength: 4 }).map((bytes) => bytes.map((byte) => byte % 4)),
        fc.nat(310),
        (bytes, pattern, from) => {
          expect(searchBytes(bytes, pattern, from)).toBe(indexOf(bytes, pattern, from));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("find a byte pattern, also at the very end, and -1 when absent", () => {
    const bytes = encoder.encode("ab\r\n--x\r\n--xy");
    expect(indexOf(bytes, encoder.encode("\r\n--xy"), 0)).toBe(7);
    expect(indexOf(bytes, encoder.encode("\r\n--x"), 3)).toBe(7);
    expect(indexOf(bytes, encoder.encode("\r\n--x"), 0)).toBe(2);
    expect(indexOf(bytes, encoder.encode("zz"), 0)).toBe(-1);
  });
});
