/**
 * The reference server mounts `/api/mcp` behind its authentication: the official SDK client talks
 * to a real node:http port with an API token made by `quire token create`, its bodies read
 * through the server's raw-body bridge.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestSite,
  runProcess,
  type ServerProcess,
  startServerProcess,
} from "../../../examples/server/test/support/processes.js";

describe("POST /api/mcp on the reference server", () => {
  let site: Awaited<ReturnType<typeof createTestSite>>;
  let server: ServerProcess;
  let token: string;

  beforeAll(async () => {
    site = await createTestSite();
    const created = await runProcess("src/cli.ts", ["token", "create", "agent"], site.env);
    expect(created.code, created.stderr).toBe(0);
    token = created.stdout.trim();
    server = await startServerProcess(site.env);
  }, 60_000);
  afterAll(async () => {
    server?.child.kill("SIGTERM");
    await server?.exited;
    await site?.cleanup();
  });

  it("serves the tools to an SDK client holding an API token", async () => {
    const client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const created = await client.callTool({
        name: "site_posts_create",
        arguments: { format: "note", bodyMarkdown: "From an agent" },
      });
      expect(created.isError, JSON.stringify(created)).toBeFalsy();
      const id = (created.structuredContent as { id: string }).id;
      const http = await fetch(`${server.url}/api/posts/${id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const read = await client.callTool({ name: "site_posts_get", arguments: { id } });
      expect(read.structuredContent).toEqual(await http.json());
    } finally {
      await client.close();
    }
  });

  it("answers 401 without the token and 405 to GET", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const anonymous = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: expect.any(String), code: "UNAUTHORIZED" });
    const get = await fetch(`${server.url}/api/mcp`, { headers: { authorization: `Bearer ${token}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const ping = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body,
    });
    expect(await ping.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(ping.headers.get("cache-control")).toBe("no-store");
  });
});
