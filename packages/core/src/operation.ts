import type * as z from "zod";
import type { Caller } from "./caller.js";
import type { EngineContext } from "./deps.js";
import { forbidden, invalidField, unauthorized, type ValidationDetails, validationError } from "./errors.js";
import { extend } from "./shared/extend.js";
import { findUnstorableText } from "./shared/storable-text.js";
import { isByteSource } from "./storage.js";

/**
 * Who may call an operation: anyone (`public`), the site owner (`owner`), or the operator holding
 * the internal admin token (`internal`). Adapters derive their surfaces from it: public routes,
 * owner routes behind a session or token, internal routes behind the admin token.
 */
export type Access = "public" | "owner" | "internal";

/**
 * What a client may assume about an operation; MCP tool annotations and the OpenAPI document read
 * them. Unset means false.
 */
export interface OperationHints {
  /** Changes nothing. */
  readOnly?: boolean;
  /** May delete or irreversibly replace data. */
  destructive?: boolean;
  /** Calling it twice with the same input has the effect of calling it once. */
  idempotent?: boolean;
}

/** What an operation's handler receives besides its parsed input. */
export interface OperationContext extends EngineContext {
  caller: Caller;
  /**
   * Input a transport could read only after a streamed body had been consumed (form fields after
   * the file of a one-shot upload), already converted like the rest of the input. Absent in-process
   * and over MCP, where the whole input arrives at once.
   */
  trailingInput?: (() => Promise<Record<string, unknown>>) | undefined;
}

/** One domain operation, defined once and exposed in-process, over HTTP and over MCP. */
export interface Operation<
  Id extends string = string,
  Input extends z.ZodType = z.ZodType,
  Output = unknown,
> {
  /** Stable dotted id, `group.name` (e.g. `posts.create`): the in-process API and tool names derive from it. */
  id: Id;
  access: Access;
  /** One sentence on what it does, for people and agents (MCP tool descriptions, the API reference). */
  description: string;
  hints?: OperationHints;
  /**
   * The canonical input: values, not a transport's text (numbers, booleans, arrays, enums, bytes).
   * Unknown keys are stripped (spec § Conventions rule 1).
   */
  input: Input;
  /**
   * The answer's shape, for the API reference (OpenAPI response schemas) and MCP clients. Not
   * checked at run time; a test validates the worked examples of docs/api.md against it.
   */
  output?: z.ZodType;
  run(ctx: OperationContext, input: z.output<Input>): Promise<Output>;
}

/** Any operation, whatever its id, input and output. */
// biome-ignore lint/suspicious/noExplicitAny: the widest operation type; callers narrow by id
export type AnyOperation = Operation<string, z.ZodType, any>;

/** Declares an operation; a typed identity function that keeps the id's literal type. */
export function defineOperation<const Id extends string, Input extends z.ZodType, Output>(
  operation: Operation<Id, Input, Output>,
): Operation<Id, Input, Output> {
  return operation;
}

/** The input type a caller passes to an operation. */
export type OperationInput<Op> = Op extends Operation<string, infer Input, unknown> ? z.input<Input> : never;
/** The result type of an operation. */
export type OperationOutput<Op> = Op extends Operation<string, z.ZodType, infer Output> ? Output : never;

/** Per-call extras an adapter may pass besides the input. */
export interface ExecuteOptions {
  /** See {@link OperationContext.trailingInput}. */
  trailingInput?: () => Promise<Record<string, unknown>>;
  /** Overrides the engine's links for this call (an adapter supplies the addresses it serves). */
  links?: EngineContext["links"];
  /**
   * The site settings an adapter already read for this request (`engine.siteSettings()`), so the
   * call does not read them again; the engine reads them otherwise.
   */
  settings?: EngineContext["settings"];
  /** The adapter already asked the site-availability hook for this request (docs/hosting.md). */
  siteChecked?: boolean;
}

/**
 * Runs an operation for a caller: checks access, parses the raw input (a failure is
 * VALIDATION_ERROR with zod's flattened `formErrors`/`fieldErrors`), then runs the handler.
 */
export async function execute<Input extends z.ZodType, Output>(
  context: EngineContext,
  operation: Operation<string, Input, Output>,
  rawInput: unknown,
  caller: Caller,
  options: ExecuteOptions = {},
): Promise<Output> {
  checkAccess(operation.access, caller);
  const parsed = parseInput(operation.input, rawInput);
  return operation.run(
    extend(context, { links: options.links ?? context.links, caller, trailingInput: options.trailingInput }),
    parsed,
  );
}

/** Parses raw input with a schema the way every operation does; refuses text no database stores as sent first. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, rawInput: unknown): z.output<Schema> {
  const unstorable = findUnstorableText(rawInput, { maxDepth: 32, opaque: isByteSource });
  if (unstorable !== null) throw invalidField(unstorable.path || "input", unstorable.message);
  const parsed = schema.safeParse(rawInput ?? {}, { error: readableMessage });
  if (!parsed.success) {
    const details = validationDetails(parsed.error.issues);
    throw validationError(summarize(details), details);
  }
  return parsed.data;
}

/**
 * zod's issues in the spec's `{ formErrors, fieldErrors }` shape, each field named by its full path
 * (`attachments[0].content`, `selection.collection`), so a nested mistake points at its place.
 */
export function validationDetails(issues: readonly z.core.$ZodIssue[]): ValidationDetails {
  const formErrors: string[] = [];
  // A field is named by what the client sent: a Map, so that `constructor`, `toString` or
  // `__proto__` are fields like any other, not properties every object already has.
  const fieldErrors = new Map<string, string[]>();
  for (const issue of issues) {
    if (issue.path.length === 0) {
      formErrors.push(issue.message);
      continue;
    }
    const field = fieldPath(issue.path);
    const messages = fieldErrors.get(field) ?? [];
    messages.push(issue.message);
    fieldErrors.set(field, messages);
  }
  // fromEntries defines each field as an own property (`__proto__` included).
  return { formErrors, fieldErrors: Object.fromEntries(fieldErrors) };
}

/** A path as a person writes it: `attachments[0].content`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/**
 * Messages for the issues a person most often meets, where the schema gives none of its own: a
 * missing field is "Required"; a value of the wrong type says what was expected and what came
 * (`Expected a number, received the text "abc"`), which is how a query value that did not convert
 * reads. Other issues keep zod's message.
 */
function readableMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== "invalid_type") return undefined;
  if (issue.input === undefined) return "Required";
  return `Expected ${withArticle(issue.expected)}, received ${describeValue(issue.input)}`;
}

function withArticle(expected: string): string {
  const names: Record<string, string> = {
    int: "an integer",
    integer: "an integer",
    object: "an object",
    array: "an array",
    string: "a string",
    number: "a number",
    boolean: "a boolean (true or false)",
    date: "a date",
  };
  return names[expected] ?? expected;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the text ${JSON.stringify(shown)}`;
  }
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  if (typeof value === "object") return isByteSource(value) ? "file bytes" : "an object";
  return typeof value;
}

function checkAccess(access: Access, caller: Caller): void {
  if (access === "public") return;
  if (caller.role === access) return;
  // The internal admin may do anything the owner may.
  if (access === "owner" && caller.role === "internal") return;
  if (caller.role === "public") throw unauthorized();
  throw forbidden();
}

function summarize(details: {
  formErrors: string[];
  fieldErrors: Record<string, string[] | undefined>;
}): string {
  const fields = Object.entries(details.fieldErrors).map(
    ([field, messages]) => `${field}: ${messages?.[0] ?? ""}`,
  );
  return ["Invalid input", ...details.formErrors, ...fields]
    .join("; ")
    .replace("Invalid input; ", "Invalid input: ");
}
