import { describe, expect, it } from "vitest";
import { operations } from "./engine.js";
import { inputJsonSchema } from "./shared/bytes.js";

const plainTypes = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);

/** Every node that describes a value names a plain JSON type, or is a choice between such nodes. */
function checkPlain(node: unknown, path: string): void {
  expect(typeof node, path).toBe("object");
  const schema = node as Record<string, unknown>;
  const choices = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (choices) {
    for (const [i, choice] of choices.entries()) checkPlain(choice, `${path}|${i}`);
    return;
  }
  if ("const" in schema || "enum" in schema) return;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  for (const type of types) expect(plainTypes, `${path}: ${JSON.stringify(schema)}`).toContain(type);
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) {
    checkPlain(property, `${path}.${name}`);
  }
  if (schema.items) checkPlain(schema.items, `${path}[]`);
}

describe("operation inputs as JSON Schema", () => {
  it("converts every operation's input to plain JSON types (for MCP tools and OpenAPI)", () => {
    expect(operations.length).toBeGreaterThan(20);
    for (const operation of operations) {
      const schema = inputJsonSchema(operation.input);
      expect(schema.type, operation.id).toBe("object");
      checkPlain(schema, operation.id);
    }
  });

  it("describes bytes as base64 text and lists as arrays", () => {
    const byId = new Map(operations.map((op) => [op.id as string, op]));
    const upload = inputJsonSchema(byId.get("media.upload")?.input as never);
    expect(upload.properties?.file).toEqual({ type: "string", contentEncoding: "base64" });
    expect(upload.required).toEqual(expect.arrayContaining(["file", "filename"]));
    const threads = inputJsonSchema(byId.get("threads.list")?.input as never);
    expect(threads.properties?.fold).toEqual({ type: "boolean" });
    expect(threads.properties?.limit).toMatchObject({ type: "integer" });
    expect(threads.properties?.collection).toMatchObject({ type: "array" });
  });
});
