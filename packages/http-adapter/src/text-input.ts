import type * as z from "zod";

/**
 * Text fields (a query string, form fields) converted to an operation's canonical input, once, at
 * the edge, guided by the operation's own schema — the way Hono's validator reads each input source
 * against one schema. Numbers and booleans are read from their text; a list field takes repeated
 * keys and comma-separated values; `include=a,b` turns on the boolean fields `a` and `b` (values an
 * operation does not offer are skipped, spec § Conventions rule 3). Text that does not convert is
 * passed on as text, so the schema's own check names the field in the 400.
 */
export function inputFromText(schema: z.ZodType, fields: [string, string][]): Record<string, unknown> {
  const shape = objectShape(schema);
  const grouped = new Map<string, string[]>();
  for (const [name, value] of fields) grouped.set(name, [...(grouped.get(name) ?? []), value]);
  const input: Record<string, unknown> = {};
  for (const [name, values] of grouped) {
    const field = fieldOf(shape, name);
    if (name === "include" && shape && !field) {
      for (const flag of splitList(values)) if (isBoolean(fieldOf(shape, flag))) input[flag] = true;
    } else if (field) {
      input[name] = fromText(field, values);
    } else {
      input[name] = values[0];
    }
  }
  return input;
}

/** The value of one field from its text values (one, or several for a repeated key). */
function fromText(schema: z.ZodType, values: string[]): unknown {
  const def = definitionOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "nonoptional":
    case "catch":
      return fromText(def.innerType as z.ZodType, values);
    case "pipe":
      return fromText(def.in as z.ZodType, values);
    case "array":
      return splitList(values).map((item) => fromText(def.element as z.ZodType, [item]));
    case "union":
      return fromUnion(def.options as z.ZodType[], values);
    case "number":
    case "bigint":
      return numberFrom(values[0] as string);
    case "boolean":
      return booleanFrom(values[0] as string);
    default:
      return values[0];
  }
}

/** The first member of a union that accepts the converted text; else the text as it came. */
function fromUnion(options: z.ZodType[], values: string[]): unknown {
  for (const option of options) {
    const value = fromText(option, values);
    if (option.safeParse(value).success) return value;
  }
  return values[0];
}

function numberFrom(text: string): number | string {
  const trimmed = text.trim();
  return /^-?(?:\d+|\d*\.\d+)(?:[eE][+-]?\d+)?$/.test(trimmed) ? Number(trimmed) : text;
}

function booleanFrom(text: string): boolean | string {
  return text === "true" ? true : text === "false" ? false : text;
}

function splitList(values: string[]): string[] {
  return values.flatMap((value) => value.split(",").map((part) => part.trim())).filter((part) => part !== "");
}

function isBoolean(schema: z.ZodType | undefined): boolean {
  if (!schema) return false;
  const def = definitionOf(schema);
  if (def.type === "boolean") return true;
  const inner = (def.innerType ?? def.in) as z.ZodType | undefined;
  return inner !== undefined && isBoolean(inner);
}

/** A field of the shape by name; never one of `Object.prototype`'s members (`constructor`, `toString`). */
function fieldOf(shape: Record<string, z.ZodType> | undefined, name: string): z.ZodType | undefined {
  return shape && Object.hasOwn(shape, name) ? shape[name] : undefined;
}

/** The fields of an object schema (through optional, pipe and the like), or undefined. */
export function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const def = definitionOf(schema);
  if (def.type === "object") return def.shape as Record<string, z.ZodType>;
  const inner = (def.innerType ?? def.in) as z.ZodType | undefined;
  return inner ? objectShape(inner) : undefined;
}

// A zod schema's definition, read structurally so the adapter works with any copy of zod 4.
function definitionOf(schema: z.ZodType): Record<string, unknown> & { type: string } {
  return (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
}
