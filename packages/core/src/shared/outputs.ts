import * as z from "zod";

/**
 * Answer shapes shared by every resource. Output schemas describe what an operation answers for
 * the API reference (docs/openapi.json); they are not applied at run time. Objects list every
 * key an answer may carry: a test parses each worked example of docs/api.md with its operation's
 * schema and fails when a key would be dropped or a value does not fit.
 */

/** Unix seconds. */
export const unixTime = z.number().int().describe("Unix seconds");

/** A TypeID of one prefix, as an answer carries it. */
export const idOf = (prefix: string) => z.string().startsWith(`${prefix}_`).describe(`\`${prefix}_\` ID`);

/** `{ success: true }`: a write that has nothing else to say. */
export const successOutput = z.object({ success: z.literal(true) });

/** The cursor of a list's next page; null on the last page. */
export const nextCursor = z
  .string()
  .nullable()
  .describe("Pass back unchanged for the next page; null on the last");

/** Output schemas the API reference shows once, under a name, and refers to. */
const names = new Map<z.ZodType, string>();

/** Gives an output schema a name in the API reference (`#/components/schemas/<name>`). */
export function named<Schema extends z.ZodType>(schema: Schema, name: string): Schema {
  names.set(schema, name);
  return schema;
}

/** What the API reference needs of the answers: each schema once, and a reference per operation. */
export interface OutputComponents {
  /** JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) by name; they refer to each other. */
  schemas: Record<string, z.core.JSONSchema.BaseSchema>;
  /** The `$ref` of an operation's answer, by operation id; absent without an output schema. */
  refs: Map<string, { $ref: string }>;
}

/**
 * The operations' output schemas as named JSON Schemas: shared shapes (a post, a Thread, a media
 * record, …) under their own names, every other answer under `<OperationId>Answer`.
 */
export function outputComponents(
  operations: Iterable<{ id: string; output?: z.ZodType | undefined }>,
  base = "#/components/schemas/",
): OutputComponents {
  const registry = z.registry<{ id: string }>();
  for (const [schema, name] of names) registry.add(schema, { id: name });
  const refs = new Map<string, { $ref: string }>();
  for (const operation of operations) {
    if (!operation.output) continue;
    if (!registry.has(operation.output)) registry.add(operation.output, { id: answerName(operation.id) });
    refs.set(operation.id, { $ref: `${base}${registry.get(operation.output)?.id}` });
  }
  const { schemas } = z.toJSONSchema(registry, {
    io: "output",
    unrepresentable: "any",
    uri: (id) => `${base}${id}`,
  });
  const clean: Record<string, z.core.JSONSchema.BaseSchema> = {};
  for (const [name, schema] of Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) {
    const { $schema: _schema, $id: _id, ...json } = schema;
    clean[name] = json;
  }
  return { schemas: clean, refs };
}

/** `posts.setLanguage` → `PostsSetLanguageAnswer`. */
function answerName(operationId: string): string {
  return `${operationId
    .split(".")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("")}Answer`;
}
named(successOutput, "Success");
