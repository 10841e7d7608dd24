import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { ownerCaller } from "@quire/core";
import { createHandler, statusOf } from "@quire/http-adapter";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cursorOf, fieldHints, idOf } from "../../http-adapter/test/fuzz/field-hints.js";
import { type FuzzSite, openFuzzSite, ownerToken, pngBytes } from "../../http-adapter/test/fuzz/fuzz-site.js";
import { oddString } from "../../http-adapter/test/fuzz/odd-values.js";
import { changesBetween, errorShapeProblem } from "../../http-adapter/test/fuzz/run-fuzz.js";
import {
  type FieldHint,
  type JsonSchema,
  mutated,
  objectsOf,
} from "../../http-adapter/test/fuzz/schema-values.js";
import { createMcpHandler, serveStdio } from "../src/index.js";

/**
 * Bad-input fuzzing of every MCP tool through the official SDK client (docs/fuzzing.md § MCP tool
 * fuzzing): arguments generated from each tool's `inputSchema`, valid or mutated, with the site's
 * real IDs and cursors. Each call must answer a result, never a protocol error: a success whose
 * text is its structured content, or `isError` with the spec's `{ error, code, details? }` (never
 * an internal error), and a refused call or a read changes nothing stored. The HTTP routes have
 * their own, longer fuzzing (packages/http-adapter/test/fuzz.http.test.ts).
 */
const calls = Number(process.env.QUIRE_MCP_FUZZ_CALLS ?? 600);
const seed = Number(process.env.QUIRE_MCP_FUZZ_SEED ?? 20_241_128);
/** Raw JSON-RPC messages sent to the endpoint (the second suite). */
const envelopes = Number(process.env.QUIRE_MCP_FUZZ_ENVELOPES ?? 1_000);

interface Problem {
  kind: string;
  detail: string;
  call: string;
}

describe("fuzzing every MCP tool", () => {
  it(`answers ${calls} generated tool calls with a result in the spec's shape and leaves the store as it was when refused`, async () => {
    const site = await openFuzzSite();
    const problems: Problem[] = [];
    const byTool = new Map<string, { ok: number; refused: number }>();
    let toolNames: string[] = [];
    let client: Client | undefined;
    try {
      client = await connect(site);
      const { tools } = await client.listTools();
      toolNames = tools.map((tool) => tool.name);
      const pools = await site.pools([]);
      const collectionIds: string[] = [];
      const cursors: string[] = [];
      const hints = toolHints(pools, collectionIds, cursors);
      const callArbitrary = fc.oneof(...tools.map((tool) => callOf(tool, hints, plainCalls(pools))));
      for (let round = 0, made = 0; made < calls && problems.length < 10; round++) {
        await site.replenish();
        Object.assign(pools, await site.pools([...cursors]));
        collectionIds.splice(0, collectionIds.length, ...(await collectionsOf(site)));
        const planned = fc.sample(callArbitrary, { numRuns: Math.min(25, calls - made), seed: seed + round });
        let before = await site.snapshot();
        for (const call of planned) {
          made++;
          const label = `${call.tool.name} ${JSON.stringify(call.arguments).slice(0, 300)}`;
          const found = (kind: string, detail: string) => problems.push({ kind, detail, call: label });
          let result: Awaited<ReturnType<Client["callTool"]>>;
          try {
            result = await client.callTool({ name: call.tool.name, arguments: call.arguments });
          } catch (err) {
            found("threw", String(err));
            before = await site.snapshot();
            continue;
          }
          const unknown = unknownArguments(call.tool, call.arguments);
          if (unknown.length > 0 && structuredOf(result)?.code !== "VALIDATION_ERROR") {
            found(
              "unknown argument",
              `${unknown.join(", ")} answered ${JSON.stringify(result.structuredContent).slice(0, 200)}`,
            );
          }
          const figures = byTool.get(call.tool.name) ?? { ok: 0, refused: 0 };
          byTool.set(call.tool.name, figures);
          const structured = result.structuredContent as Record<string, unknown> | undefined;
          const text = (result.content as { type: string; text?: string }[] | undefined)?.[0]?.text;
          if (result.isError) {
            figures.refused++;
            if (process.env.QUIRE_MCP_FUZZ_REPORT?.includes(call.tool.name)) console.log(label, "→", text);
            const code = structured?.code as keyof typeof statusOf | undefined;
            // The HTTP status of the code, so the HTTP fuzzer's shape check applies; 0 for a code the spec lacks.
            const status = typeof code === "string" && Object.hasOwn(statusOf, code) ? statusOf[code] : 0;
            const shape = errorShapeProblem(status, structured);
            if (shape) found("error shape", `${shape}: ${JSON.stringify(structured)}`);
            else if (status >= 500) found("internal error", JSON.stringify(structured));
            else if (text !== structured?.error)
              found("error text", `content[0].text ${JSON.stringify(text)}`);
          } else {
            figures.ok++;
            if (text !== JSON.stringify(structured))
              found("result text", "content[0].text is not the structured content");
            learnCursor(structured, cursors);
          }
          const after = await site.snapshot();
          if (result.isError || call.tool.annotations?.readOnlyHint) {
            const changes = changesBetween(before, after, { rows: () => false, files: () => false });
            if (changes.length > 0) found("changed store", changes.slice(0, 6).join("\n"));
          }
          before = after;
        }
      }
    } finally {
      await client?.close();
      await site.close();
    }
    expect(problems.map((problem) => `${problem.kind}: ${problem.detail}\n  ${problem.call}`)).toEqual([]);
    // Every tool was called, and most of them got past validation at least once.
    expect([...byTool.keys()].sort()).toEqual(toolNames.sort());
    const succeeded = [...byTool].filter(([, figures]) => figures.ok > 0).map(([name]) => name);
    if (process.env.QUIRE_MCP_FUZZ_REPORT) console.log(JSON.stringify(Object.fromEntries(byTool)));
    expect(succeeded.length).toBeGreaterThanOrEqual(toolNames.length - 4);
  }, 300_000);
});

describe("fuzzing the JSON-RPC envelope of /api/mcp", () => {
  it(`answers ${envelopes} generated messages, each at once and in JSON-RPC's shape, never as an internal error`, async () => {
    const site = await openFuzzSite();
    const handler = mcpHandlerOf(site);
    const problems: string[] = [];
    try {
      for (const body of fc.sample(envelope(), { numRuns: envelopes, seed })) {
        const text = JSON.stringify(body);
        const request = new Request("http://localhost/api/mcp", {
          method: "POST",
          headers: { authorization: `Bearer ${ownerToken}`, "content-type": "application/json" },
          body: text,
        });
        const answer = await Promise.race([
          handler(request).then(async (response) => ({
            status: response.status,
            text: await response.text(),
          })),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000)),
        ]);
        const problem = envelopeProblem(body, answer);
        if (problem) problems.push(`${problem}\n  ${text.slice(0, 300)}`);
        if (problems.length >= 10) break;
      }
    } finally {
      await site.close();
    }
    expect(problems).toEqual([]);
  }, 300_000);
});

describe("fuzzing the JSON-RPC envelope over stdio", () => {
  it(`answers the same ${envelopes} messages on one stdio session as the HTTP endpoint does, each at once`, async () => {
    const site = await openFuzzSite();
    const handler = mcpHandlerOf(site);
    const stdio = openStdio(site);
    const problems: string[] = [];
    try {
      stdio.write({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "fuzz", version: "1" },
        },
      });
      await stdio.until("init");
      for (const [index, body] of fc.sample(envelope(), { numRuns: envelopes, seed }).entries()) {
        const text = JSON.stringify(body);
        const response = await handler(
          new Request("http://localhost/api/mcp", {
            method: "POST",
            headers: { authorization: `Bearer ${ownerToken}`, "content-type": "application/json" },
            body: text,
          }),
        );
        const overHttp = response.status === 202 ? null : JSON.parse(await response.text());
        // A ping after each message: what arrives before its answer is the message's.
        stdio.line(text);
        const fence = `fence-${index}`;
        stdio.write({ jsonrpc: "2.0", id: fence, method: "ping" });
        const before = await stdio.until(fence);
        const problem = stdioProblem(overHttp, before);
        if (problem) problems.push(`${problem}\n  ${text.slice(0, 300)}`);
        if (problems.length >= 10) break;
      }
    } finally {
      await stdio.close();
      await site.close();
    }
    expect(problems).toEqual([]);
  }, 300_000);
});

/**
 * Why the stdio answers to a message differ from the HTTP endpoint's answer, or null: none where
 * HTTP answered 202, else exactly one, a result where HTTP gave one, or the same error code.
 * (Results may differ in their content: stdio is one session, HTTP a new one per request.)
 */
function stdioProblem(
  overHttp: Record<string, unknown> | null,
  overStdio: Record<string, unknown>[],
): string | null {
  if (overHttp === null)
    return overStdio.length === 0 ? null : `answered a notification: ${JSON.stringify(overStdio)}`;
  if (overStdio.length !== 1) return `${overStdio.length} answers where HTTP gave one`;
  const [answer] = overStdio as [Record<string, unknown>];
  if (answer.id !== overHttp.id)
    return `id ${JSON.stringify(answer.id)} where HTTP answered ${JSON.stringify(overHttp.id)}`;
  const code = (message: Record<string, unknown>) =>
    (message.error as { code?: number } | undefined)?.code ?? "result";
  return code(answer) === code(overHttp) ? null : `${code(answer)} where HTTP answered ${code(overHttp)}`;
}

/** `serveStdio` on in-memory streams, reading its answers line by line. */
function openStdio(site: FuzzSite) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const answers: Record<string, unknown>[] = [];
  let wake: (() => void) | undefined;
  let pending = "";
  stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      answers.push(JSON.parse(pending.slice(0, end)));
      pending = pending.slice(end + 1);
    }
    wake?.();
  });
  const served = serveStdio(site.engine, ownerCaller, { stdin, stdout });
  return {
    line: (text: string) => stdin.write(`${text}\n`),
    write: (message: unknown) => stdin.write(`${JSON.stringify(message)}\n`),
    /** The answers before the one with this id (which is dropped); throws after 5 s without it. */
    async until(id: string): Promise<Record<string, unknown>[]> {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const at = answers.findIndex((answer) => answer.id === id);
        if (at >= 0) return answers.splice(0, at + 1).slice(0, at);
        if (Date.now() > deadline) throw new Error(`no answer to ${id} within 5 s`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
    },
    async close() {
      stdin.end();
      await served;
    },
  };
}

/** Why an answer to a generated message breaks the endpoint's rules (docs/mcp.md § The HTTP endpoint), or null. */
function envelopeProblem(body: unknown, answer: { status: number; text: string } | null): string | null {
  if (answer === null) return "no answer within 5 s";
  const notification = typeof body === "object" && body !== null && !Array.isArray(body) && !("id" in body);
  if (answer.status === 202) return notification && answer.text === "" ? null : "202 to a request";
  if (answer.status !== 200 && answer.status !== 400) return `status ${answer.status}`;
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(answer.text);
  } catch {
    return "an answer that is not JSON";
  }
  if (message.jsonrpc !== "2.0") return "an answer without jsonrpc 2.0";
  if ("result" in message === "error" in message) return "an answer with neither or both of result and error";
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  if (error) {
    if (typeof error.message !== "string") return "an error without a message";
    if (![-32700, -32600, -32601, -32602].includes(error.code as number)) return `error code ${error.code}`;
    if ((answer.status === 400) !== [-32700, -32600].includes(error.code as number)) {
      return `error ${error.code} answered with ${answer.status}`;
    }
  } else if (answer.status !== 200) return `a result answered with ${answer.status}`;
  return null;
}

/** JSON-RPC-like messages: mostly well formed, with odd ids, methods, params, `_meta` and extra members. */
function envelope(): fc.Arbitrary<unknown> {
  const id = fc.oneof(
    { weight: 4, arbitrary: fc.integer() },
    fc.string({ maxLength: 8 }),
    fc.constantFrom(2 ** 53, 2 ** 53 + 2, -(2 ** 60), 1.5, -0, null, true, [], {}),
  );
  const method = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("initialize", "ping", "tools/list", "tools/call") },
    fc.constantFrom(
      "notifications/initialized",
      "notifications/cancelled",
      "resources/list",
      "tasks/get",
      "",
    ),
    fc.constantFrom("constructor", "__proto__", "toString"),
    oddString(),
  );
  const meta = fc.oneof(
    fc.constant(undefined),
    fc.record({ progressToken: fc.oneof(fc.integer(), fc.string(), fc.constantFrom(1.5, null, {}, [])) }),
    fc.constantFrom(5, "x", null, [], { "io.modelcontextprotocol/related-task": { taskId: "x" } }),
  );
  const params = fc.oneof(
    fc.constant(undefined),
    fc.record(
      {
        name: fc.oneof(fc.constantFrom("site_posts_list", "site_settings_get", "site_nope"), oddString()),
        arguments: fc.oneof(fc.constant({}), fc.constantFrom({ limit: 1 }, [], null, "x")),
        _meta: meta,
        task: fc.constantFrom({ ttl: 1000 }, 5, {}),
        protocolVersion: fc.constantFrom("2025-06-18", "1999-01-01", 5),
        capabilities: fc.constantFrom({}, null),
        clientInfo: fc.constantFrom({ name: "x", version: "1" }, {}, "x"),
        cursor: fc.oneof(fc.string({ maxLength: 4 }), fc.constant(5)),
        requestId: fc.integer(),
      },
      { requiredKeys: [] },
    ),
    fc.constantFrom(5, "x", null, []),
  );
  return fc
    .record(
      {
        jsonrpc: fc.oneof({ weight: 6, arbitrary: fc.constant("2.0") }, fc.constantFrom("1.0", 2, null)),
        id,
        method,
        params,
        extra: fc.constantFrom(1, "x"),
      },
      { requiredKeys: ["jsonrpc", "method"] },
    )
    .map((message) => Object.fromEntries(Object.entries(message).filter(([, value]) => value !== undefined)));
}

function mcpHandlerOf(site: FuzzSite) {
  return createHandler(site.engine, {
    devApiToken: ownerToken,
    clientAddress: () => "127.0.0.1",
    mcp: createMcpHandler(site.engine),
  });
}

async function connect(site: FuzzSite): Promise<Client> {
  const handler = mcpHandlerOf(site);
  const client = new Client({ name: "quire-fuzz", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
      // Without the transport's signal: each Request would add a listener to it until collected, and
      // thousands of calls pass Node's listener warning (the test never aborts a call).
      fetch: (url, init) => handler(new Request(url, { ...init, signal: null })),
      requestInit: { headers: { authorization: `Bearer ${ownerToken}` } },
    }),
  );
  return client;
}

/**
 * A call of one tool: arguments from its schema, most of them valid field by field, a third mutated;
 * for the tools whose fields have rules between them, also plain valid calls.
 */
function callOf(
  tool: Tool,
  hints: (tool: Tool) => FieldHint,
  plain: Record<string, fc.Arbitrary<Record<string, unknown>>>,
) {
  const valid = objectsOf(tool.inputSchema as JsonSchema, hints(tool));
  const simple = plain[tool.name];
  return fc
    .oneof(
      { weight: 2, arbitrary: valid },
      { weight: 1, arbitrary: valid.chain(mutated) },
      ...(simple ? [{ weight: 2, arbitrary: simple }] : []),
    )
    .map((args) => ({ tool, arguments: args }));
}

/** Valid calls of the tools whose generated fields nearly always break a rule between fields. */
function plainCalls(
  pools: Parameters<typeof fieldHints>[0],
): Record<string, fc.Arbitrary<Record<string, unknown>>> {
  const text = fc.oneof(
    fc.string({ minLength: 1, maxLength: 40 }),
    fc.constantFrom("Hello", "日本語", "a\u0301"),
  );
  const markdown = fc.constantFrom(
    "Hello *world*",
    "# Title\n\nbody",
    "- a\n- b",
    "[x](https://example.com)",
  );
  return {
    site_posts_create: fc.oneof(
      fc.record(
        { format: fc.constant("note"), title: text, bodyMarkdown: markdown },
        { requiredKeys: ["format"] },
      ),
      fc.record({ format: fc.constant("note"), bodyMarkdown: markdown, replyToId: idOf("pst", pools) }),
      fc.record({ format: fc.constant("link"), url: fc.webUrl(), title: text }),
    ),
    site_posts_update: fc.record(
      {
        id: idOf("pst", pools),
        title: text,
        bodyMarkdown: markdown,
        status: fc.constantFrom("draft", "published"),
      },
      { requiredKeys: ["id"] },
    ),
    site_settings_update: fc.oneof(
      fc.record({ SITE_NAME: text }),
      fc.record({ PAGE_SIZE: fc.integer({ min: 1, max: 100 }).map(String) }),
      fc.record({ TIME_ZONE: fc.constantFrom("UTC", "Europe/Paris", "Asia/Tokyo") }),
    ),
  };
}

/**
 * The HTTP fuzzer's field hints, and the arguments a tool has that an HTTP route takes in its path
 * or body bytes: `id` (of the tool's kind), `threadId`, `cursor` (the cursors tools gave out),
 * base64 file bytes.
 */
function toolHints(
  pools: Parameters<typeof fieldHints>[0],
  collectionIds: string[],
  cursors: string[],
): (tool: Tool) => FieldHint {
  const shared = fieldHints(pools);
  const collection = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.nat().map((n) => collectionIds[n % Math.max(1, collectionIds.length)] ?? "col_x"),
    },
    { weight: 1, arbitrary: idOf("col", pools) },
  );
  const base64 = fc.oneof(
    { weight: 3, arbitrary: fc.constant(Buffer.from(pngBytes(3, 2)).toString("base64")) },
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString("base64")),
    fc.constantFrom("", "=", "!!!!", "aGVsbG8", "aGVsbG8=\n", "data:image/png;base64,AAAA"),
    oddString(),
  );
  return (tool) => (field, schema) => {
    if (field === "id") {
      if (tool.name.includes("_media_") || tool.name.includes("_attachments_")) return idOf("med", pools);
      if (tool.name.includes("_collections_")) return collection;
      return idOf("pst", pools);
    }
    if (field === "threadId") return idOf("pst", pools);
    if (field === "collectionId") return collection;
    if (field === "cursor") {
      return fc.oneof(
        cursorOf({ ...pools, cursors }),
        fc.nat().map((n) => cursors[n % Math.max(1, cursors.length)] ?? "x"),
      );
    }
    if (field === "contentBase64" || field === "poster") return base64;
    return shared(field, schema);
  };
}

/** Arguments a tool with a closed schema does not take (every call naming one must be refused). */
function unknownArguments(tool: Tool, args: Record<string, unknown>): string[] {
  const schema = tool.inputSchema as JsonSchema;
  if (schema.additionalProperties !== false) return [];
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return Object.keys(args).filter((name) => !Object.hasOwn(properties, name));
}

function structuredOf(result: Record<string, unknown>): Record<string, unknown> | undefined {
  const structured = result.structuredContent;
  return typeof structured === "object" && structured !== null
    ? (structured as Record<string, unknown>)
    : undefined;
}

let createdCollections = 0;

/** The site's collections, three at least (the fuzzer deletes some). */
async function collectionsOf(site: FuzzSite): Promise<string[]> {
  const { db } = site.engine.context;
  const rows = await db.selectFrom("collections").select("id").execute();
  while (rows.length < 3) {
    createdCollections++;
    const slug = `fuzz-collection-${createdCollections}`;
    rows.push({
      id: (await site.engine.collections.create({ slug, title: `Fuzz ${createdCollections}` })).id,
    });
  }
  return rows.map((row) => row.id);
}

function learnCursor(structured: Record<string, unknown> | undefined, cursors: string[]): void {
  const cursor = structured?.nextCursor;
  if (typeof cursor === "string" && !cursors.includes(cursor)) {
    cursors.push(cursor);
    if (cursors.length > 40) cursors.shift();
  }
}
