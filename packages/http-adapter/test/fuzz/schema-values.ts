import fc from "fast-check";
import { oddNumber, oddString, oddValue, wrongTypeFor } from "./odd-values.js";

/** A JSON Schema node as `inputJsonSchema` writes it (plain JSON types, anyOf/oneOf, enum, const). */
export type JsonSchema = Record<string, unknown>;

/**
 * A value for a field the schema cannot describe well (IDs, cursors, slugs, Markdown): the fuzzer's
 * site supplies real IDs and cursors, so requests reach past validation. Undefined: use the schema.
 */
export type FieldHint = (field: string, schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;

/**
 * Values a schema accepts, or nearly: walked from the operation's JSON Schema, with lengths and
 * ranges kept small but sometimes on or just past a bound.
 */
export function valuesOf(schema: JsonSchema, hint: FieldHint, field = ""): fc.Arbitrary<unknown> {
  const hinted = field === "" ? undefined : hint(field, schema);
  if (hinted) return hinted;
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (choices) return fc.oneof(...choices.map((choice) => valuesOf(choice, hint, field)));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type) => valuesOf({ ...schema, type }, hint, field)));
  }
  switch (schema.type) {
    case "string":
      return stringsOf(schema);
    case "integer":
      return numbersOf(schema, true);
    case "number":
      return numbersOf(schema, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const min = Number(schema.minItems ?? 0);
      const max = Math.min(Number(schema.maxItems ?? 4), min + 3);
      const items = valuesOf((schema.items ?? {}) as JsonSchema, hint, `${field}[]`);
      return fc.array(items, { minLength: min, maxLength: max });
    }
    case "object":
      return objectsOf(schema, hint);
    default:
      return oddValue();
  }
}

const absent = Symbol("absent");

/**
 * Objects of a schema: required fields always, each optional one a third of the time (few fields
 * at once, so more requests are valid as a whole — the rules between fields, such as which suit a
 * post's format, are not in the schema).
 */
export function objectsOf(schema: JsonSchema, hint: FieldHint): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const fields = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const values = valuesOf(property, hint, name);
      return [
        name,
        required.has(name)
          ? values
          : fc.oneof({ weight: 2, arbitrary: fc.constant(absent) }, { weight: 1, arbitrary: values }),
      ];
    }),
  );
  return fc
    .record(fields)
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== absent)));
}

function stringsOf(schema: JsonSchema): fc.Arbitrary<string> {
  const min = Number(schema.minLength ?? 0);
  const max = Number(schema.maxLength ?? 200);
  const sized: fc.Arbitrary<string>[] = [
    fc.string({ minLength: min, maxLength: Math.min(max, min + 30) }),
    fc.string({ unit: "grapheme", minLength: min, maxLength: Math.min(max, min + 12) }),
  ];
  if (typeof schema.pattern === "string") sized.push(fc.stringMatching(new RegExp(schema.pattern)));
  // The bounds themselves, when they are small enough to send often.
  if (max <= 5_000) sized.push(fc.constantFrom("x".repeat(max), "x".repeat(max + 1)));
  if (min > 0) sized.push(fc.constant("x".repeat(min - 1)));
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...sized) }, { weight: 1, arbitrary: oddString() });
}

function numbersOf(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = Math.max(Number(schema.minimum ?? schema.exclusiveMinimum ?? -1e6), -1e12);
  const max = Math.min(Number(schema.maximum ?? 1e6), 1e12);
  const inRange = integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true });
  const edges = fc.constantFrom(min, max, min - 1, max + 1, Math.round((min + max) / 2));
  return fc.oneof({ weight: 6, arbitrary: inRange }, { weight: 2, arbitrary: edges }, oddNumber());
}

/** Ways a valid object is made invalid, one at a time or a few together. */
export function mutated(value: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(value);
  const one = fc.oneof(
    // A field removed (a required one is as likely as any).
    ...(keys.length > 0 ? [fc.constantFrom(...keys).map((key) => without(value, key))] : []),
    // A field of the wrong type, or an odd value in place of a good one.
    ...(keys.length > 0
      ? [
          fc
            .constantFrom(...keys)
            .chain((key) =>
              fc.oneof(wrongTypeFor(value[key]), oddValue()).map((bad) => ({ ...value, [key]: bad })),
            ),
        ]
      : []),
    // Unknown fields (ignored by the spec), including prototype names.
    fc
      .tuple(
        fc.constantFrom(
          "extra",
          "__proto__",
          "constructor",
          "toString",
          "",
          "id",
          "siteId",
          "日本",
          "a\nb",
          "x\u0000",
        ),
        oddValue(),
      )
      .map(([key, extra]) => withKey(value, key, extra)),
    // Everything null.
    fc.constant(Object.fromEntries(keys.map((key) => [key, null]))),
  );
  return fc.oneof(
    one,
    one.chain((first) => mutatedOnce(first)),
  );
}

function mutatedOnce(value: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(value);
  if (keys.length === 0) return fc.constant(value);
  return fc.constantFrom(...keys).chain((key) => oddValue().map((bad) => ({ ...value, [key]: bad })));
}

function without(value: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

/** Sets a key as an own property, even `__proto__`, as JSON.parse would. */
function withKey(value: Record<string, unknown>, key: string, extra: unknown): Record<string, unknown> {
  const copy = { ...value };
  Object.defineProperty(copy, key, { value: extra, enumerable: true, writable: true, configurable: true });
  return copy;
}
