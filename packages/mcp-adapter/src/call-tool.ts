import {
  type Caller,
  type Engine,
  EngineError,
  type ErrorBody,
  isEngineError,
  type Links,
  toErrorBody,
} from "@quire/core";
import type { ToolDefinition } from "./tools.js";

/** What `tools/call` answers: the HTTP body as structured content, and as JSON text. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
}

/** Per-call settings of a tool call. */
export interface ToolCallOptions {
  /** The addresses the answers name (`contentUrl`); over HTTP, the handler's own. */
  links?: Links | undefined;
  /** Where unexpected errors are reported; defaults to the engine's logger. */
  onUnexpectedError?: (error: unknown, tool: string) => void;
}

/**
 * Runs one tool for a caller: the arguments are renamed to the operation's input names and handed
 * to `engine.execute`, which validates them with the operation's own schema. A success is the
 * object the HTTP endpoint answers; a failure is `isError` with the spec's error body.
 */
export async function callTool(
  engine: Engine,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  caller: Caller,
  options: ToolCallOptions = {},
): Promise<ToolResult> {
  let input: Record<string, unknown>;
  try {
    input = inputOf(engine, tool, args);
  } catch (err) {
    // Named by the tool's own arguments already.
    return errorResult(toErrorBody(err));
  }
  try {
    const result = (await engine.execute(tool.operation.id, input, caller, {
      links: options.links ?? engine.context.links,
    })) as Record<string, unknown>;
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  } catch (err) {
    if (!isEngineError(err)) {
      if (options.onUnexpectedError) options.onUnexpectedError(err, tool.name);
      else engine.context.logger.error("unexpected error", { tool: tool.name, error: describe(err) });
    }
    return errorResult(errorBodyOf(err, tool));
  }
}

/** A failed call: the spec's error body as structured content, its message as the text. */
function errorResult(body: ErrorBody): ToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: body.error }],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}

/**
 * The operation's raw input from the MCP arguments: renamed, and refused when it names an
 * argument the tool does not take (a tool's schema is closed, unlike a JSON body). The decoded size
 * of base64 bytes is checked against the upload limit before anything is decoded.
 */
function inputOf(
  engine: Engine,
  tool: ToolDefinition,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const names = tool.argumentNames;
  const unknown = names === null ? [] : Object.keys(args).filter((name) => !names.has(name));
  if (unknown.length > 0) {
    const fieldErrors = Object.fromEntries(
      unknown.map((name) => [name, [`${tool.name} takes no argument ${name}`]]),
    );
    throw new EngineError("VALIDATION_ERROR", `Invalid input: unknown argument ${unknown.join(", ")}`, {
      formErrors: [],
      fieldErrors,
    });
  }
  // Built from entries, so that every name stays an own key (`__proto__` too, as in a JSON body),
  // and renamed only by the tool's own names.
  const rename = new Map(Object.entries(tool.spec.rename ?? {}));
  const input = Object.fromEntries(
    Object.entries(args).map(([name, value]) => [rename.get(name) ?? name, value]),
  );
  for (const argument of tool.spec.base64 ?? []) {
    checkBase64Size(argument, args[argument], engine.context.config.uploadMaxBytes);
  }
  return input;
}

/** Refuses base64 text whose decoded size is over the upload limit, from its length alone. */
function checkBase64Size(argument: string, value: unknown, maxBytes: number): void {
  if (typeof value !== "string") return;
  const padding = value.endsWith("==") ? 2 : value.endsWith("=") ? 1 : 0;
  const decoded = Math.floor((value.length * 3) / 4) - padding;
  if (decoded <= maxBytes) return;
  const message = `The file is larger than ${maxBytes} bytes`;
  throw new EngineError("VALIDATION_ERROR", `${argument}: ${message}`, {
    formErrors: [],
    fieldErrors: { [argument]: [message] },
  });
}

/** The spec's error body, with fields named as the tool's arguments where they were renamed. */
function errorBodyOf(err: unknown, tool: ToolDefinition): ErrorBody {
  const body = toErrorBody(err);
  const fieldErrors = body.details?.fieldErrors;
  if (!tool.spec.rename || typeof fieldErrors !== "object" || fieldErrors === null) return body;
  const renamed = Object.fromEntries(
    Object.entries(fieldErrors).map(([field, messages]) => [tool.argumentOf.get(field) ?? field, messages]),
  );
  let error = body.error;
  for (const [field, argument] of tool.argumentOf) {
    if (field !== argument) error = error.replace(new RegExp(`\\b${field}:`, "g"), `${argument}:`);
  }
  return { ...body, error, details: { ...body.details, fieldErrors: renamed } };
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
