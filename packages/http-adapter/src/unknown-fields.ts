import { inputJsonSchema } from "@quire/core";
import type * as z from "zod";

type JsonSchema = Record<string, unknown>;

const cache = new WeakMap<z.ZodType, JsonSchema | null>();

/**
 * The fields of a raw input that its operation's schema does not know, by path
 * (`bodyMarkdwn`, `attachments[0].colour`). The operation ignores them (spec § Conventions rule 1);
 * the handler can name them in a header when asked (`warnUnknownFields`).
 */
export function unknownFields(schema: z.ZodType, input: Record<string, unknown>): string[] {
  let json = cache.get(schema);
  if (json === undefined) {
    try {
      json = inputJsonSchema(schema) as JsonSchema;
    } catch {
      json = null;
    }
    cache.set(schema, json);
  }
  if (json === null) return [];
  const found: string[] = [];
  walk(json, json, input, "", found, 0);
  return found;
}

function walk(
  root: JsonSchema,
  schema: JsonSchema,
  value: unknown,
  path: string,
  found: string[],
  depth: number,
) {
  if (depth > 16 || typeof value !== "object" || value === null) return;
  const branches = branchesOf(root, schema);
  if (Array.isArray(value)) {
    const items = branches.map((branch) => branch.items).filter(isSchema);
    if (items.length === 0) return;
    for (const [i, item] of value.entries()) {
      for (const itemSchema of items) walk(root, itemSchema, item, `${path}[${i}]`, found, depth + 1);
    }
    return;
  }
  const objects = branches.filter(
    (branch) => isSchema(branch.properties) || branch.additionalProperties !== undefined,
  );
  if (objects.length === 0) return;
  for (const [key, item] of Object.entries(value)) {
    const field = path === "" ? key : `${path}.${key}`;
    const known = objects.flatMap((branch) => {
      const properties = isSchema(branch.properties) ? branch.properties : {};
      if (Object.hasOwn(properties, key)) return [properties[key] as JsonSchema];
      if (isSchema(branch.additionalProperties)) return [branch.additionalProperties];
      return branch.additionalProperties === true ? [{}] : [];
    });
    if (known.length === 0) {
      found.push(field);
      continue;
    }
    // A value under a field some branch knows is checked against the first such branch only.
    walk(root, known[0] as JsonSchema, item, field, found, depth + 1);
  }
}

/** A schema with its `$ref`, `anyOf`, `oneOf` and `allOf` spread into the schemas a value may meet. */
function branchesOf(root: JsonSchema, schema: JsonSchema, depth = 0): JsonSchema[] {
  if (depth > 8) return [];
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    return target ? branchesOf(root, target, depth + 1) : [];
  }
  const nested = [schema.anyOf, schema.oneOf, schema.allOf].flatMap((list) =>
    Array.isArray(list) ? list : [],
  );
  return [schema, ...nested.filter(isSchema).flatMap((branch) => branchesOf(root, branch, depth + 1))];
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    if (!isSchema(node)) return undefined;
    node = node[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return isSchema(node) ? node : undefined;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
