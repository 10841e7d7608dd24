import { gzipSync } from "node:zlib";
import { createHandler } from "@quire/http-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stoppingBody } from "../../http-adapter/test/helpers.js";
import { createMcpHandler, toolTable } from "../src/index.js";
import { createMcpSite, devToken, type McpSite } from "./support.js";

let site: McpSite;
beforeAll(async () => {
  site = await createMcpSite();
});
afterAll(async () => {
  await site.close();
});

const rpc = (method: string, params?: unknown, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});
const initialize = (protocolVersion: string) =>
  rpc("initialize", { protocolVersion, capabilities: {}, clientInfo: { name: "t", version: "1" } });

async function postCount(): Promise<number> {
  const row = await site.engine.context.db
    .selectFrom("posts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("POST /api/mcp: HTTP rules", () => {
  it("answers 401 in the spec's error shape without a token, and writes nothing", async () => {
    const before = await postCount();
    const call = rpc("tools/call", {
      name: "site_posts_create",
      arguments: { format: "note", bodyMarkdown: "x" },
    });
    const response = await site.post(call, { authorization: "" });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: expect.any(String), code: "UNAUTHORIZED" });
    expect(response.headers.get("cache-control")).toBe("no-store");
    const wrong = await site.post(call, { authorization: "Bearer not-a-token" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("UNAUTHORIZED");
    expect(await postCount()).toBe(before);
  });

  it("answers 405 with Allow: POST to any other method", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const response = await site.post(rpc("ping"), {}, method);
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.body.code).toBe("METHOD_NOT_ALLOWED");
    }
  });

  it("reads an absent MCP-Protocol-Version as 2025-06-18 and refuses any other with 400", async () => {
    const absent = await site.post(rpc("ping"));
    expect(absent.status).toBe(200);
    expect(absent.body).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    const current = await site.post(rpc("ping"), { "mcp-protocol-version": "2025-06-18" });
    expect(current.status).toBe(200);
    for (const version of ["2025-03-26", "2025-11-25", "garbage"]) {
      const other = await site.post(rpc("ping"), { "mcp-protocol-version": version });
      expect(other.status, version).toBe(400);
      expect(other.body).toEqual({
        error: expect.stringContaining(version),
        code: "VALIDATION_ERROR",
        details: { formErrors: [other.body.error], fieldErrors: {} },
      });
      expect(other.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("reads the body whatever its Content-Type and Accept say", async () => {
    const response = await site.post(rpc("ping"), { "content-type": "text/plain", accept: "text/html" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.body.result).toEqual({});
  });

  it("initialize answers 2025-06-18 whatever version the client proposes", async () => {
    for (const proposed of ["2025-06-18", "2025-11-25", "2024-11-05", "1999-01-01"]) {
      const response = await site.post(initialize(proposed));
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("mcp-session-id")).toBeNull();
      expect(response.body.result).toMatchObject({
        protocolVersion: "2025-06-18",
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: "quire" },
      });
    }
  });

  it("answers a notification with 202 and an empty body", async () => {
    const response = await site.post({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(response.status).toBe(202);
    expect(response.body).toBeNull();
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("gives each malformed request its JSON-RPC error code", async () => {
    const cases: [string, unknown, number, number][] = [
      ["unparseable JSON", '{"jsonrpc": "2.0", "id": 1, "method": ', -32700, 400],
      ["a batch", [rpc("ping", undefined, 1), rpc("ping", undefined, 2)], -32600, 400],
      ["no jsonrpc", { id: 1, method: "ping" }, -32600, 400],
      ["jsonrpc 1.0", { jsonrpc: "1.0", id: 1, method: "ping" }, -32600, 400],
      ["no method", { jsonrpc: "2.0", id: 1 }, -32600, 400],
      ["a bare value", 42, -32600, 400],
      ["params not an object", { jsonrpc: "2.0", id: 1, method: "tools/list", params: [1] }, -32600, 400],
      ["an unknown method", rpc("resources/list"), -32601, 200],
      ["tools/call without a name", rpc("tools/call", { arguments: {} }), -32602, 200],
      [
        "tools/call with arguments not an object",
        rpc("tools/call", { name: "site_posts_list", arguments: [] }),
        -32602,
        200,
      ],
      ["initialize without clientInfo", rpc("initialize", { protocolVersion: "2025-06-18" }), -32602, 200],
      ["an unknown tool", rpc("tools/call", { name: "site_nope", arguments: {} }), -32602, 200],
      // The SDK reads these as no message it knows and answers nothing: each hung until the client gave up.
      ["an id past 2^53", { jsonrpc: "2.0", id: 2 ** 53 + 2, method: "ping" }, -32600, 400],
      ["a member beyond the four", { jsonrpc: "2.0", id: 1, method: "ping", extra: 1 }, -32600, 400],
      ["_meta not an object", rpc("ping", { _meta: 5 }), -32602, 200],
      [
        "a progress token neither text nor a number",
        rpc("tools/call", { name: "site_posts_list", arguments: {}, _meta: { progressToken: {} } }),
        -32602,
        200,
      ],
      // A task (a later protocol version's) was an internal error (-32603) of the SDK's.
      [
        "tools/call asking for a task",
        rpc("tools/call", { name: "site_posts_list", arguments: {}, task: { ttl: 1000 } }),
        -32602,
        200,
      ],
    ];
    for (const [what, body, code, status] of cases) {
      const response = await answerWithin(site.post(body), what);
      expect(response.status, what).toBe(status);
      expect(response.body.jsonrpc, what).toBe("2.0");
      expect(response.body.error.code, what).toBe(code);
      expect(response.body.error.message, what).toEqual(expect.any(String));
      expect(response.headers.get("cache-control"), what).toBe("no-store");
    }
    // Invalid params are named by their place in the message, in one line.
    const unnamed = await site.post(rpc("tools/call", { arguments: {} }));
    expect(unnamed.body.error.message).toBe(
      "MCP error -32602: Invalid params for tools/call: params.name: Invalid input: expected string, received undefined",
    );
    const badMeta = await site.post(rpc("ping", { _meta: 5 }));
    expect(badMeta.body.error.message).toBe(
      "MCP error -32602: Invalid params for ping: params._meta: Invalid input: expected object, received number",
    );
    // The id of a request is echoed when it can be read.
    expect((await site.post({ jsonrpc: "2.0", id: 7 })).body.id).toBe(7);
    expect((await site.post(rpc("nope/nope", undefined, "a"))).body.id).toBe("a");
  });

  it("answers a body that stops before its end as the HTTP API does (400), logging nothing and calling nothing", async () => {
    const logged: string[] = [];
    const logger = { info() {}, warn() {}, error: (message: string) => void logged.push(message) };
    const handler = createHandler(site.engine, {
      devApiToken: devToken,
      clientAddress: () => "127.0.0.1",
      mcp: createMcpHandler(site.engine),
      logger,
    });
    const before = await postCount();
    const half = JSON.stringify(
      rpc("tools/call", { name: "site_posts_create", arguments: { format: "note" } }),
    ).slice(0, 40);
    const body = stoppingBody(half);
    const response = await handler(
      new Request("http://localhost/api/mcp", {
        method: "POST",
        headers: { authorization: `Bearer ${devToken}`, "content-type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "The request body stopped before all of it arrived",
      code: "VALIDATION_ERROR",
      details: { formErrors: ["The request body stopped before all of it arrived"], fieldErrors: {} },
    });
    expect(logged).toEqual([]);
    expect(await postCount()).toBe(before);
  });

  it("refuses a compressed body as the HTTP API does (415), calling nothing", async () => {
    const handler = createHandler(site.engine, {
      devApiToken: devToken,
      clientAddress: () => "127.0.0.1",
      mcp: createMcpHandler(site.engine),
    });
    const before = await postCount();
    const call = rpc("tools/call", { name: "site_posts_create", arguments: { format: "note", title: "x" } });
    const response = await handler(
      new Request("http://localhost/api/mcp", {
        method: "POST",
        headers: {
          authorization: `Bearer ${devToken}`,
          "content-type": "application/json",
          "content-encoding": "gzip",
        },
        body: gzipSync(JSON.stringify(call)),
      }),
    );
    expect([response.status, response.headers.get("accept-encoding"), await response.json()]).toEqual([
      415,
      "identity",
      {
        error:
          "This server reads request bodies uncompressed; send the body without Content-Encoding (got gzip)",
        code: "UNSUPPORTED_MEDIA_TYPE",
      },
    ]);
    expect(await postCount()).toBe(before);
  });

  it("refuses a body over the limit without reading it all", async () => {
    const small = await createMcpSite({ config: { uploadMaxBytes: 1024 } });
    try {
      const limit = Math.ceil(1024 / 3) * 4 + 1024 * 1024;
      const response = await small.post(`"${"a".repeat(limit)}"`);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("VALIDATION_ERROR");
    } finally {
      await small.close();
    }
  });
});

/** The spec's tool table (§ MCP), by group. */
const specTools = {
  posts: [
    "site_posts_list",
    "site_posts_get",
    "site_posts_search",
    "site_posts_create",
    "site_posts_update",
    "site_posts_delete",
  ],
  threads: ["site_threads_list", "site_threads_get", "site_threads_list_posts"],
  media: ["site_media_list", "site_media_get", "site_media_upload", "site_media_update", "site_media_delete"],
  attachments: ["site_attachments_get_content"],
  collections: [
    "site_collections_list",
    "site_collections_get",
    "site_collections_create",
    "site_collections_update",
    "site_collections_delete",
    "site_collections_add_thread",
    "site_collections_remove_thread",
  ],
  settings: ["site_settings_get", "site_settings_update"],
};

describe("tools/list", () => {
  it("is exactly the spec's 24 tools in their groups", async () => {
    const listed = ((await site.post(rpc("tools/list"))).body.result.tools as { name: string }[]).map(
      (t) => t.name,
    );
    expect(listed.sort()).toEqual(Object.values(specTools).flat().sort());
    expect(listed).toHaveLength(24);
    for (const [group, names] of Object.entries(specTools)) {
      for (const name of names) expect(toolTable.find((row) => row.name === name)?.group, name).toBe(group);
    }
  });

  it("lists every tool of the table once, each with a description, annotations and a closed schema", async () => {
    const response = await site.post(rpc("tools/list"));
    const tools = response.body.result.tools as {
      name: string;
      description: string;
      inputSchema: Record<string, unknown>;
      annotations: Record<string, boolean>;
    }[];
    expect(tools.map((tool) => tool.name)).toEqual(toolTable.map((row) => row.name));
    for (const tool of tools) {
      expect(tool.description.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.inputSchema.$schema, tool.name).toBeUndefined();
      expect(Object.keys(tool.annotations).sort()).toEqual([
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
        "readOnlyHint",
      ]);
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("site_posts_list")?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(byName.get("site_posts_delete")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.get("site_posts_create")?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(byName.get("site_media_update")?.annotations).toMatchObject({ idempotentHint: true });
  });

  it("names the arguments as the spec does", async () => {
    const tools = (await site.post(rpc("tools/list"))).body.result.tools as {
      name: string;
      inputSchema: { properties: Record<string, { type?: string; enum?: string[] }>; required?: string[] };
    }[];
    const schema = (name: string) => tools.find((tool) => tool.name === name)?.inputSchema;
    const threads = schema("site_threads_list");
    expect(threads?.properties.fold?.type).toBe("boolean");
    expect(threads?.properties.content?.enum).toEqual(["markdown"]);
    expect(threads?.properties.include).toBeUndefined();
    for (const filter of [
      "sort",
      "visibility",
      "format",
      "collection",
      "year",
      "media",
      "title",
      "replies",
      "lang",
      "status",
      "cursor",
      "limit",
    ]) {
      expect(threads?.properties[filter], filter).toBeDefined();
    }
    expect(schema("site_posts_list")?.properties.cursor).toBeDefined();
    expect(schema("site_threads_list_posts")?.properties.cursor).toBeDefined();
    expect(schema("site_posts_get")?.properties.content?.enum).toEqual(["markdown"]);
    const upload = schema("site_media_upload");
    expect(Object.keys(upload?.properties ?? {}).sort()).toEqual(
      ["alt", "contentBase64", "contentType", "filename", "poster", "posterContentType"].sort(),
    );
    expect(upload?.properties.contentBase64?.type).toBe("string");
    expect(upload?.required).toEqual(expect.arrayContaining(["contentBase64", "filename"]));
    const search = schema("site_posts_search");
    if (search) {
      expect(search.properties.q).toBeDefined();
      expect(search.properties.limit).toBeDefined();
    }
    const add = schema("site_collections_add_thread");
    if (add) expect(add.required?.sort()).toEqual(["id", "threadId"]);
  });
});

describe("the official SDK client over Streamable HTTP", () => {
  it("initializes, lists and calls tools, sending the negotiated version", async () => {
    const seen: (string | null)[] = [];
    const client = await site.client((request) => {
      if (request.method === "POST") seen.push(request.headers.get("mcp-protocol-version"));
    });
    {
      expect(client.getServerVersion()?.name).toBe("quire");
      const { tools } = await client.listTools();
      expect(tools.length).toBe(toolTable.length);
      const created = await client.callTool({
        name: "site_posts_create",
        arguments: { format: "note", bodyMarkdown: "Hello *MCP*" },
      });
      expect(created.isError).toBeFalsy();
      const post = created.structuredContent as { id: string; bodyHtml: string };
      expect(post.bodyHtml).toBe("<p>Hello <em>MCP</em></p>");
      expect(JSON.parse((created.content as { text: string }[])[0]?.text ?? "")).toEqual(post);
      await client.ping();
    }
    // initialize goes without the header; every later request carries the answered version.
    expect(seen[0]).toBeNull();
    expect(seen.slice(1).filter((version) => version !== null)).not.toHaveLength(0);
    expect(new Set(seen.slice(1))).toEqual(new Set(["2025-06-18"]));
  });
});

/** The answer, or a failure naming the request if none comes within 5 s. */
function answerWithin<T>(answer: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within 5 s`)), 5_000);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}
