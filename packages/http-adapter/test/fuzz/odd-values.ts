import fc from "fast-check";

/**
 * Hostile values for any field: text with NUL, lone surrogates, control and direction characters,
 * markup and SQL, very long text; numbers past every limit; wrong JSON types; deep nesting. Each
 * is a value a client can send as JSON; the fuzzer also turns them into query and form text.
 */

/** Strings no field should choke on. */
export const oddStrings: readonly string[] = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\udc00\ud800",
  "\u202e\u200b\ufeff",
  "💥🧵",
  "日本語",
  "\r\n\t",
  "%00",
  "%ff%fe",
  "../../etc/passwd",
  "..\\..\\boot.ini",
  "<script>alert(1)</script>",
  "' or 1=1 --",
  '"; drop table posts; --',
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-1",
  "1e309",
  "0x1f",
  "true",
  "[]",
  "{}",
  "__proto__",
  "constructor",
  "pst_",
  "pst_00000000000000000000000000",
  "pst_zzzzzzzzzzzzzzzzzzzzzzzzzz",
  "med_7zzzzzzzzzzzzzzzzzzzzzzzzz",
  "PST_01H00000000000000000000000",
  "eyJvIjoidGhyZWFkcy5hY3Rpdml0eSIsImsiOltdfQ",
  "eyJvIjoicG9zdHMucHVibGlzaGVkIiwiayI6W251bGwsbnVsbF19",
  "a".repeat(1001),
  "-".repeat(300),
  "x".repeat(20_000),
];

/** Numbers past every limit, fractions, negative zero and the largest safe integers. */
export const oddNumbers: readonly number[] = [
  -1,
  -0,
  0,
  0.5,
  1.5,
  -1e9,
  1e21,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  253402300800,
];

let oddStringArbitrary: fc.Arbitrary<string> | undefined;

/** A string from the odd list, or a random one (any code points, or a few lone surrogates); built once. */
export function oddString(): fc.Arbitrary<string> {
  oddStringArbitrary ??= fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...oddStrings) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.integer({ min: 0xd800, max: 0xdfff }), { minLength: 1, maxLength: 4 })
        .map((units) => String.fromCharCode(...units)),
    },
  );
  return oddStringArbitrary;
}

/** A number from the odd list or any double (JSON cannot carry NaN or Infinity: they become null). */
export function oddNumber(): fc.Arbitrary<number> {
  return fc.oneof(fc.constantFrom(...oddNumbers), fc.double({ noNaN: true, noDefaultInfinity: true }));
}

/** A value nested `depth` levels deep in arrays or objects. */
export function nested(depth: number, kind: "array" | "object", leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = kind === "array" ? [value] : { a: value };
  return value;
}

let oddValueArbitrary: fc.Arbitrary<unknown> | undefined;

/** Any value of a JSON type, odd ones favoured, including deep nesting; built once. */
export function oddValue(): fc.Arbitrary<unknown> {
  oddValueArbitrary ??= fc.oneof(
    { weight: 3, arbitrary: oddString() },
    { weight: 2, arbitrary: oddNumber() },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { "": "" }) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(20, 100), fc.constantFrom("array" as const, "object" as const))
        .map(([depth, kind]) => nested(depth, kind)),
    },
  );
  return oddValueArbitrary;
}

/** A value of another JSON type than `value` (a wrong type for its field). */
export function wrongTypeFor(value: unknown): fc.Arbitrary<unknown> {
  const candidates: unknown[] = [];
  if (typeof value !== "string") candidates.push("text", "", "1");
  if (typeof value !== "number") candidates.push(1, -1, 1.5, 1e300);
  if (typeof value !== "boolean") candidates.push(true, false);
  if (value !== null) candidates.push(null);
  if (!Array.isArray(value)) candidates.push([], [value], ["a", 1]);
  if (typeof value !== "object" || value === null || Array.isArray(value)) candidates.push({}, { value });
  return fc.constantFrom(...candidates);
}
