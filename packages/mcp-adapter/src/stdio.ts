import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Caller, Engine } from "@quire/core";
import { maxMessageBytes } from "./http.js";
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
  const transport = new StdioServerTransport(stdin, stdout, {
    maxBufferSize: maxMessageBytes(engine.context.config.uploadMaxBytes),
  });
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
