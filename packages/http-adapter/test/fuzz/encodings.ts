import fc from "fast-check";
import { oddString } from "./odd-values.js";

const encoder = new TextEncoder();

/** How a body or query travels, and the headers that go with it. */
export interface Encoded {
  query: string;
  body?: Uint8Array;
  contentType?: string;
  /** A label for the way it was encoded (for the report). */
  how: string;
}

/** Query-string pairs for a set of values, the way a client might write each type (or not). */
export function queryPairs(values: Record<string, unknown>): fc.Arbitrary<[string, string][]> {
  const entries = Object.entries(values);
  if (entries.length === 0) return fc.constant([]);
  return fc.tuple(...entries.map(([name, value]) => fieldPairs(name, value))).map((groups) => groups.flat());
}

function fieldPairs(name: string, value: unknown): fc.Arbitrary<[string, string][]> {
  if (name === "fold" && value === true) {
    return fc.constantFrom<[string, string][]>(
      [["include", "fold"]],
      [["include", "fold,unknown"]],
      [["fold", "true"]],
    );
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => textOf(item));
    return fc.constantFrom<[string, string][]>(
      [[name, items.join(",")]],
      items.map((item): [string, string] => [name, item]),
      [[name, JSON.stringify(value)]],
    );
  }
  if (typeof value === "number") {
    return fc.constantFrom<[string, string][]>(
      [[name, String(value)]],
      [[name, ` ${value} `]],
      [[name, value.toExponential()]],
      [[name, `${value}abc`]],
    );
  }
  if (typeof value === "boolean") {
    return fc.constantFrom<[string, string][]>(
      [[name, String(value)]],
      [[name, value ? "1" : "0"]],
      [[name, "yes"]],
    );
  }
  return fc.constant([[name, textOf(value)]]);
}

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** Raw query text no URLSearchParams would write: bad escapes, empty names, repeated separators. */
export const rawQueryGarbage: readonly string[] = [
  "%",
  "%zz=1",
  "a=%E0%A4%A",
  "%ED%A0%80=x",
  "=x",
  "&&&",
  "a==b",
  "limit=1&limit=2&limit=x",
  "include=fold&include=fold",
  "cursor=&limit=",
  `q=${"%41".repeat(3000)}`,
  "__proto__=1&constructor=2",
  "limit=1e999",
  "limit=-9007199254740993",
  "year=0x7e8",
];

/** A query string: the pairs encoded, sometimes with raw garbage appended. */
export function queryString(pairs: [string, string][]): fc.Arbitrary<string> {
  const encoded = pairs.map(([name, value]) => `${encodeLoosely(name)}=${encodeLoosely(value)}`).join("&");
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(encoded) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...rawQueryGarbage)
        .map((garbage) => (encoded ? `${encoded}&${garbage}` : garbage)),
    },
  );
}

/** Percent-encodes text, lone surrogates included (as their UTF-8-like bytes, which no decoder accepts). */
export function encodeLoosely(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    let out = "";
    for (const char of text) {
      const code = char.codePointAt(0) as number;
      out +=
        code >= 0xd800 && code <= 0xdfff
          ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
              .map((byte) => `%${byte.toString(16).toUpperCase()}`)
              .join("")
          : encodeURIComponent(char);
    }
    return out;
  }
}

/** A JSON body for `values`, or something that is not quite one (large variants built only when drawn). */
export function jsonBody(values: Record<string, unknown>): fc.Arbitrary<Encoded> {
  const text = JSON.stringify(values);
  const json = "application/json";
  const plain = (how: string, body: string | Uint8Array, contentType: string | undefined = json) => ({
    query: "",
    body: typeof body === "string" ? encoder.encode(body) : body,
    ...(contentType === undefined ? {} : { contentType }),
    how,
  });
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(null).map(() => plain("json", text)) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          undefined,
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/json; charset=utf-16",
        )
        .map((type) => plain("json, other content type", text, type)),
    },
    {
      weight: 2,
      arbitrary: fc
        .nat({ max: Math.max(0, text.length - 1) })
        .map((cut) => plain("truncated json", text.slice(0, cut))),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...notJsonObjects).map((body) => plain("not a json object", body)),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(1_000, 100_000)
        .map((depth) =>
          plain("deep json array", `{"a":${"[".repeat(depth)}${"]".repeat(depth)},${text.slice(1)}`),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(1_000, 20_000)
        .map((depth) =>
          plain(
            "deep json object",
            `{"extra":${'{"a":'.repeat(depth)}1${"}".repeat(depth)},${text.slice(1)}`,
          ),
        ),
    },
    { weight: 1, arbitrary: fc.constantFrom(...oddJsonBytes).map((bytes) => plain("odd json bytes", bytes)) },
  );
}

const notJsonObjects = [
  "[]",
  "[1,2]",
  "null",
  "true",
  "42",
  '"text"',
  "{",
  "}",
  "{'a':1}",
  '{"a":undefined}',
  "NaN",
  "\ufeff{}",
  "{}garbage",
  '{"a":1}{"b":2}',
];

const oddJsonBytes = [
  Uint8Array.of(0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d),
  Uint8Array.of(0xef, 0xbb, 0xbf, 0x7b, 0x7d),
  Uint8Array.of(0x00, 0x7b, 0x7d),
  encoder.encode(`{"title":"\\ud800","slug":"\\u0000"}`),
  encoder.encode(`{"rating":1e999,"limit":-0,"size":-1e-400}`),
  encoder.encode(`{"format":"note","format":"link"}`),
  encoder.encode(`{"__proto__":{"admin":true},"constructor":{"prototype":{}}}`),
];

/** A text value for a form field. */
function formText(value: unknown): string {
  return typeof value === "string"
    ? value
    : value === null || value === undefined
      ? ""
      : JSON.stringify(value);
}

/** One part of a multipart/form-data body. */
export type FormEntry =
  | { name: string; value: string }
  | { name: string; filename: string; type: string; data: Uint8Array };

/** A multipart/form-data body, or a broken one. */
export function formBody(
  fields: Record<string, unknown>,
  file: { filename: string; type: string; data: Uint8Array },
): fc.Arbitrary<Encoded> {
  const textEntries: FormEntry[] = Object.entries(fields).map(([name, value]) => ({
    name,
    value: formText(value),
  }));
  const fileEntry: FormEntry = { name: "file", ...file };
  const boundary = "fuzz-boundary-7d3a";
  const typeOf = `multipart/form-data; boundary=${boundary}`;
  const build = (how: string, entries: FormEntry[], contentType = typeOf, tail = `--${boundary}--\r\n`) => ({
    query: "",
    body: multipart(boundary, entries, tail),
    contentType,
    how,
  });
  const lazy = (make: () => Encoded) => fc.constant(null).map(make);
  return fc.oneof(
    { weight: 8, arbitrary: lazy(() => build("form, fields first", [...textEntries, fileEntry])) },
    { weight: 4, arbitrary: lazy(() => build("form, file first", [fileEntry, ...textEntries])) },
    { weight: 2, arbitrary: lazy(() => build("form without file", textEntries)) },
    {
      weight: 1,
      arbitrary: lazy(() => build("form with two files", [fileEntry, fileEntry, ...textEntries])),
    },
    {
      weight: 1,
      arbitrary: lazy(() =>
        build("form with poster", [
          ...textEntries,
          { name: "poster", filename: "p.webp", type: "image/webp", data: file.data },
          fileEntry,
        ]),
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          "multipart/form-data",
          "multipart/form-data; boundary=",
          "multipart/form-data; boundary=other",
          "application/json",
          "text/plain",
          "",
        )
        .map((contentType) => build("form, wrong content type", [...textEntries, fileEntry], contentType)),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          "",
          "--fuzz-boundary-7d3a",
          "\r\n--fuzz-boundary-7d3a\r\nContent-Disposition: form-data\r\n\r\n",
          "garbage",
        )
        .map((tail) => build("form, broken end", [...textEntries, fileEntry], typeOf, tail)),
    },
    {
      weight: 2,
      arbitrary: oddString().map((name) =>
        build("form, odd part", [
          { name, filename: name, type: name.replace(/[^\x20-\x7e]/g, ""), data: file.data },
        ]),
      ),
    },
  );
}

function multipart(boundary: string, entries: FormEntry[], tail: string): Uint8Array {
  const pieces: Uint8Array[] = [];
  for (const entry of entries) {
    const header =
      "filename" in entry
        ? `Content-Disposition: form-data; name="${entry.name}"; filename="${entry.filename}"\r\nContent-Type: ${entry.type}`
        : `Content-Disposition: form-data; name="${entry.name}"`;
    pieces.push(encoder.encode(`--${boundary}\r\n${header}\r\n\r\n`));
    pieces.push("filename" in entry ? entry.data : encoder.encode(entry.value));
    pieces.push(encoder.encode("\r\n"));
  }
  pieces.push(encoder.encode(tail));
  const out = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.byteLength, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.byteLength;
  }
  return out;
}
