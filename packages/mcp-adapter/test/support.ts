import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Engine, EngineConfig } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { createHandler, type FetchHandler } from "@quire/http-adapter";
import { createFsStorage } from "@quire/storage-fs";
import { createMcpHandler } from "../src/index.js";

/** A test site: an engine on a fresh database and local store, its Fetch handler with `/api/mcp`. */
export interface McpSite {
  engine: Engine;
  handler: FetchHandler;
  clock: Awaited<ReturnType<typeof createTestEngine>>["clock"];
  /** POSTs (or sends `method`) to /api/mcp as the owner unless `headers.authorization` says otherwise. */
  post(body: unknown, headers?: Record<string, string>, method?: string): Promise<RawResponse>;
  /** An official SDK client connected over Streamable HTTP to the handler; `onRequest` sees each request. */
  client(onRequest?: (request: Request) => void): Promise<Client>;
  close(): Promise<void>;
}

/** A response with its body parsed (null when empty). */
export interface RawResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
  body: any;
}

export const devToken = "dev-token";

export async function createMcpSite(options: { config?: Partial<EngineConfig> } = {}): Promise<McpSite> {
  const root = await mkdtemp(path.join(tmpdir(), "quire-mcp-"));
  const storage = createFsStorage({ root, publicBaseUrl: "/media" });
  const { engine, clock, cleanup } = await createTestEngine({ storage, config: options.config });
  const handler = createHandler(engine, {
    devApiToken: devToken,
    clientAddress: () => "127.0.0.1",
    mcp: createMcpHandler(engine),
  });
  const clients: Client[] = [];
  return {
    engine,
    handler,
    clock,
    async post(body, headers = {}, method = "POST") {
      const init: RequestInit = {
        method,
        headers: { authorization: `Bearer ${devToken}`, "content-type": "application/json", ...headers },
      };
      if (method !== "GET" && method !== "HEAD")
        init.body = typeof body === "string" ? body : JSON.stringify(body);
      const response = await handler(new Request("http://localhost/api/mcp", init));
      const text = await response.text();
      return {
        status: response.status,
        headers: response.headers,
        body: text === "" ? null : JSON.parse(text),
      };
    },
    async client(onRequest) {
      const client = new Client({ name: "quire-test", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
        fetch: (url, init) => {
          const request = new Request(url, init);
          onRequest?.(request);
          return handler(request);
        },
        requestInit: { headers: { authorization: `Bearer ${devToken}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close();
      await cleanup();
      await rm(root, { recursive: true, force: true });
    },
  };
}
