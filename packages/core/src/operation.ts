import * as z from "zod";
import type { Caller } from "./caller.js";
import type { EngineContext } from "./deps.js";
import {
  EngineError,
  forbidden,
  invalidField,
  unauthorized,
  type ValidationDetails,
  validationError,
} from "./errors.js";
import { isByteSource } from "./storage.js";

/** Who may call an operation: anyone, the site owner, or the internal admin. */
export type Access = "public" | "owner" | "internal";

/** What an operation's handler receives besides its parsed input. */
export interface OperationContext extends EngineContext {
  caller: Caller;
}

/** One domain operation, defined once and exposed in-process, over HTTP and over MCP. */
export interface Operation<Input extends z.ZodType = z.ZodType, Output = unknown> {
  /** Stable dotted id, e.g. `posts.create`; MCP tool names derive from it. */
  id: string;
  access: Access;
  /** The canonical input; unknown keys are stripped (spec § Conventions rule 1). */
  input: Input;
  run(ctx: OperationContext, input: z.output<Input>): Promise<Output>;
}

/** Declares an operation; a typed identity function. */
export function defineOperation<Input extends z.ZodType, Output>(
  operation: Operation<Input, Output>,
): Operation<Input, Output> {
  return operation;
}

/** The input type a caller passes to an operation. */
export type OperationInput<Op> = Op extends Operation<infer Input, unknown> ? z.input<Input> : never;
/** The result type of an operation. */
export type OperationOutput<Op> = Op extends Operation<z.ZodType, infer Output> ? Output : never;

/**
 * Runs an operation for a caller: checks access, parses the raw input (a failure is
 * VALIDATION_ERROR with zod's flattened `formErrors`/`fieldErrors`), then runs the handler.
 */
export async function execute<Input extends z.ZodType, Output>(
  context: EngineContext,
  operation: Operation<Input, Output>,
  rawInput: unknown,
  caller: Caller,
): Promise<Output> {
  checkAccess(operation.access, caller);
  const nulField = findNulCharacter(rawInput);
  if (nulField !== null) throw invalidField(nulField || "input", "Text may not contain NUL characters");
  const parsed = operation.input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    const details = z.flattenError(parsed.error) as ValidationDetails;
    throw validationError(summarize(details), details);
  }
  return operation.run({ ...context, caller }, parsed.data);
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

/**
 * The path of the first string holding U+0000, or null. PostgreSQL cannot store NUL in text, so it
 * is refused on every surface alike instead of failing in the driver.
 */
function findNulCharacter(value: unknown, path = "", depth = 0): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (typeof value !== "object" || value === null || depth > 32) return null;
  if (isByteSource(value)) return null;
  for (const [key, item] of Object.entries(value)) {
    const found = findNulCharacter(item, path === "" ? key : `${path}.${key}`, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/** True for errors the engine raised on purpose (as opposed to bugs). */
export function isEngineError(err: unknown): err is EngineError {
  return err instanceof EngineError;
}
