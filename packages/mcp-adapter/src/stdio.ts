import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Caller, Engine } from "@quire/core";
import { maxMessageBytes } from "./http.js";
import { type ErrorAnswer, errorAnswer, readParsed } from "./messages.js";
import { createMcpServer, type McpServerOptions } from "./server.js";

/** Options of {@link serveStdio}. */
export interface StdioOptions extends McpServerOptions {
  stdin?: Readable;
  stdout?: Writable;
}

/**
 * Serves the tools over stdio (newline-delimited JSON-RPC) for `caller` until stdin ends or the
 * client closes the connection; resolves then. Nothing but MCP messages is written to stdout.
 * A message may be as large as the HTTP endpoint's body limit (a base64 upload).
 */
export async function serveStdio(engine: Engine, caller: Caller, options: StdioOptions = {}): Promise<void> {
  const { stdin = process.stdin, stdout = process.stdout, ...serverOptions } = options;
  const server = createMcpServer(engine, caller, serverOptions);
  const transport = new LineTransport(stdin, stdout, maxMessageBytes(engine.context.config.uploadMaxBytes));
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  const end = () => void server.close();
  stdin.once("end", end);
  stdin.once("close", end);
  await server.connect(transport);
  try {
    await closed;
  } finally {
    stdin.off("end", end);
    stdin.off("close", end);
  }
}

/**
 * MCP's stdio transport: one JSON-RPC message per line, each way. Written here rather than taken
 * from the SDK (`StdioServerTransport`), which
 * - answers nothing to a line it cannot read (not JSON, a batch, or a request its schema refuses:
 *   a member beyond the four, an `id` past 2^53, a `_meta` that is not an object), so the client
 *   waits for an answer that never comes; here each gets its JSON-RPC error, as the HTTP endpoint
 *   gives it (messages.ts);
 * - closes the whole connection when a message passes its size limit; here that message is
 *   answered with an error and skipped, and the next line is read as usual;
 * - joins the buffered bytes again and searches them all for the line's end on every chunk, which
 *   is quadratic in a large message (a base64 upload arrives in thousands of chunks); here each
 *   chunk is searched once and a line is joined once.
 * A response the client sends (to a request of the server's) goes to the server as the SDK's
 * would; one that does not fit the schema is dropped, since answering it could start a loop.
 * The first gap is known upstream (modelcontextprotocol/typescript-sdk#2247, its fix still open
 * as #2488); the reference filesystem server replaced its transport for the same reasons
 * (modelcontextprotocol/servers#4228). Back to the SDK's when it answers such lines.
 */
export class LineTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #chunks: Buffer[] = [];
  #size = 0;
  /** The line being read passed the limit: its bytes are dropped until its end. */
  #tooLarge = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxLineBytes: number,
  ) {}

  async start(): Promise<void> {
    this.input.on("data", this.#onData);
    this.input.on("error", this.#onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    this.input.off("data", this.#onData);
    this.input.off("error", this.#onError);
    // Pausing stdin lets the process exit; another reader of it keeps it flowing.
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.#chunks = [];
    this.#size = 0;
    this.onclose?.();
  }

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onData = (chunk: Buffer | string) => {
    let rest = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let end = rest.indexOf(0x0a); end >= 0; end = rest.indexOf(0x0a)) {
      this.#keep(rest.subarray(0, end));
      this.#endLine();
      rest = rest.subarray(end + 1);
    }
    this.#keep(rest);
  };

  #keep(bytes: Buffer): void {
    if (this.#tooLarge || bytes.length === 0) return;
    if (this.#size + bytes.length > this.maxLineBytes) {
      this.#tooLarge = true;
      this.#chunks = [];
      this.#size = 0;
      return;
    }
    this.#chunks.push(bytes);
    this.#size += bytes.length;
  }

  #endLine(): void {
    if (this.#tooLarge) {
      this.#tooLarge = false;
      const limit = `a message may be at most ${this.maxLineBytes} bytes`;
      void this.#answer(errorAnswer(ErrorCode.InvalidRequest, `Invalid request: ${limit}`));
      return;
    }
    // Joined and decoded once the line is whole: a character split between chunks stays whole.
    const text = Buffer.concat(this.#chunks, this.#size).toString("utf8").replace(/\r$/, "");
    this.#chunks = [];
    this.#size = 0;
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      void this.#answer(errorAnswer(ErrorCode.ParseError, "Parse error: the line is not valid JSON"));
      return;
    }
    if (isResponse(value)) {
      const response = JSONRPCMessageSchema.safeParse(value);
      if (response.success) this.onmessage?.(response.data);
      return;
    }
    const read = readParsed(value);
    if ("answer" in read) void this.#answer(read.answer);
    else this.onmessage?.(read.message);
  }

  /** An error answer of the transport's own; its `id` may be null, which the SDK's type leaves out. */
  #answer(answer: ErrorAnswer): Promise<void> {
    return this.send(answer as JSONRPCMessage);
  }
}

/** True for an object with an `id` and a `result` or `error` but no `method`: a client's answer. */
function isResponse(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return !("method" in value) && "id" in value && ("result" in value || "error" in value);
}
