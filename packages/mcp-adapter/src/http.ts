import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type Caller, chunksOf, type Engine, EngineError, type Links, toErrorBody } from "@quire/core";
import { readMessage } from "./messages.js";
import { createMcpServer, mcpProtocolVersion } from "./server.js";

/** What the HTTP handler tells the MCP endpoint about a request it has authenticated. */
export interface McpRequestContext {
  /** Who the request acts for (the handler has already refused one without a session or token). */
  caller: Caller;
  /** The addresses the handler serves, for the answers' links. */
  links?: Links | undefined;
  /** The body's bytes as the server received them, when it supplies them; else `request.body`. */
  body?: AsyncIterable<Uint8Array> | undefined;
}

/** Options of {@link createMcpHandler}. */
export interface McpHandlerOptions {
  /**
   * Largest request body read, in bytes. Default: the base64 size of the engine's upload limit
   * plus 1 MiB, at most 64 MiB; larger files go through upload sessions.
   */
  maxBodyBytes?: number;
}

/** The Fetch sub-handler the HTTP adapter mounts at `/api/mcp` (its `mcp` option). */
export type McpHandler = (request: Request, context: McpRequestContext) => Promise<Response>;

/**
 * `POST /api/mcp`: MCP's JSON-RPC 2.0 over stateless JSON responses. Each request gets its own
 * SDK server, connected to a one-message transport: no sessions, no streaming, no batches.
 * @see docs/mcp.md § The HTTP endpoint
 */
export function createMcpHandler(engine: Engine, options: McpHandlerOptions = {}): McpHandler {
  const maxBodyBytes = options.maxBodyBytes ?? maxMessageBytes(engine.context.config.uploadMaxBytes);
  return async (request, context) => {
    if (request.method !== "POST") {
      return jsonResponse({ error: "Only POST is allowed on /api/mcp", code: "METHOD_NOT_ALLOWED" }, 405, {
        allow: "POST",
      });
    }
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && version !== mcpProtocolVersion) {
      return httpError(
        400,
        `Unsupported MCP-Protocol-Version ${version}; this server speaks ${mcpProtocolVersion}`,
      );
    }
    const text = await readText(request, context.body, maxBodyBytes);
    if (text === null) return httpError(400, `The request body is larger than ${maxBodyBytes} bytes`);
    const read = readMessage(text, "body");
    // A message that cannot be read is a bad request; params that do not fit are an answer like any other.
    if ("answer" in read)
      return jsonResponse(read.answer, read.answer.error.code === ErrorCode.InvalidParams ? 200 : 400);
    const rpc = read.message;
    const server = createMcpServer(engine, context.caller, { links: context.links });
    const transport = new OneMessageTransport();
    await server.connect(transport);
    try {
      transport.onmessage?.(rpc);
      // A notification gets no answer: 202 once the server has taken it.
      if (rpc.id === undefined)
        return new Response(null, { status: 202, headers: { "cache-control": "no-store" } });
      return jsonResponse(await transport.reply, 200);
    } finally {
      await server.close();
    }
  };
}

/**
 * The largest MCP message read: room for a base64 file at the upload limit plus 1 MiB of JSON, at
 * most 64 MiB (a larger file goes through upload sessions over HTTP).
 */
export function maxMessageBytes(uploadMaxBytes: number): number {
  return Math.min(Math.ceil(uploadMaxBytes / 3) * 4 + 1024 * 1024, 64 * 1024 * 1024);
}

/** A transport for one message in and at most one answer out. */
class OneMessageTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly reply: Promise<JSONRPCMessage>;
  private answer!: (message: JSONRPCMessage) => void;

  constructor() {
    this.reply = new Promise((resolve) => {
      this.answer = resolve;
    });
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    this.answer(message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}

/** An HTTP-level refusal in the spec's error shape (a validation error's `details` included). */
function httpError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return jsonResponse(toErrorBody(new EngineError("VALIDATION_ERROR", message)), status, headers);
}

function jsonResponse(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/** The body as UTF-8 text, or null once it passes `limit` bytes (reading stops there). */
async function readText(
  request: Request,
  rawBody: AsyncIterable<Uint8Array> | undefined,
  limit: number,
): Promise<string | null> {
  if (Number(request.headers.get("content-length") ?? 0) > limit) return null;
  const body = rawBody ?? request.body;
  if (!body) return "";
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let received = 0;
  for await (const chunk of chunksOf(body)) {
    received += chunk.byteLength;
    if (received > limit) return null;
    parts.push(decoder.decode(chunk, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join("");
}
