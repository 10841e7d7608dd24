import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { invalidParamsMessage } from "./server.js";

/** A JSON-RPC request or notification as the server reads it: the object `JSON.parse` made. */
export type IncomingMessage = JSONRPCMessage & { id?: string | number; method: string };

/** A JSON-RPC error answer. */
export interface ErrorAnswer {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}

/**
 * One message read from its text, as both transports read it (the HTTP endpoint a body, stdio a
 * line): the parsed request or notification, or the error to answer instead. Every message the
 * SDK would not read gets an answer here, since the SDK answers nothing to one that does not fit
 * its own schema (it only reports it to `onerror`), and its sender would wait forever: text that
 * is not JSON (-32700), a batch, a message that is not a JSON-RPC 2.0 request (-32600), and the
 * requests the SDK's schema refuses (see {@link unreadRequest}). `what` names the text in the
 * messages ("body", "line").
 */
export function readMessage(text: string, what: string): ReadMessage {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { answer: errorAnswer(ErrorCode.ParseError, `Parse error: the ${what} is not valid JSON`) };
  }
  return readParsed(message);
}

/** What {@link readMessage} reads: the message, or the error to answer. */
export type ReadMessage = { message: IncomingMessage } | { answer: ErrorAnswer };

/** {@link readMessage} of a message already parsed from JSON. */
export function readParsed(message: unknown): ReadMessage {
  if (Array.isArray(message))
    return { answer: errorAnswer(ErrorCode.InvalidRequest, "Batch requests are not supported") };
  const problem = invalidRequest(message);
  if (problem)
    return { answer: errorAnswer(ErrorCode.InvalidRequest, `Invalid request: ${problem}`, idOf(message)) };
  const rpc = message as IncomingMessage;
  const unread = rpc.id === undefined ? null : unreadRequest(rpc);
  return unread ? { answer: unread } : { message: rpc };
}

export function errorAnswer(code: number, message: string, id: string | number | null = null): ErrorAnswer {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/** Why a parsed message is not one JSON-RPC 2.0 request or notification, or null. */
function invalidRequest(message: unknown): string | null {
  if (typeof message !== "object" || message === null) return "the message must be a JSON-RPC object";
  const { jsonrpc, method, id, params } = message as Record<string, unknown>;
  if (jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
  if (typeof method !== "string" || method === "") return "method is missing";
  // Past 2^53 an integer is not read as sent (JSON.parse rounds it), so its answer could not carry it.
  if (id !== undefined && typeof id !== "string" && !Number.isSafeInteger(id)) {
    return "id must be a string or an integer of at most 2^53 - 1";
  }
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    return "params must be an object";
  }
  return null;
}

/**
 * The answer to a request the SDK would not read, or null. Checked with the SDK's own request
 * schema: a member beyond `jsonrpc`, `id`, `method` and `params` is an invalid request (-32600);
 * anything else it refuses is in `params`, such as a `_meta` that is not an object or a progress
 * token neither text nor a number, and is answered like other params that do not fit (-32602).
 */
function unreadRequest(rpc: IncomingMessage): ErrorAnswer | null {
  const parsed = JSONRPCRequestSchema.safeParse(rpc);
  if (parsed.success) return null;
  const inParams = parsed.error.issues.every((issue) => issue.path[0] === "params");
  if (!inParams) {
    return errorAnswer(
      ErrorCode.InvalidRequest,
      "Invalid request: only jsonrpc, id, method and params",
      rpc.id,
    );
  }
  // Worded as the server's own -32602 answers (an McpError's message).
  const message = new McpError(ErrorCode.InvalidParams, invalidParamsMessage(rpc.method, parsed.error.issues))
    .message;
  return errorAnswer(ErrorCode.InvalidParams, message, rpc.id);
}

function idOf(message: unknown): string | number | null {
  if (typeof message !== "object" || message === null) return null;
  const id = (message as { id?: unknown }).id;
  return typeof id === "string" || Number.isSafeInteger(id) ? (id as string | number) : null;
}
