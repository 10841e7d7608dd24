/**
 * MCP overhead benchmark: `pnpm bench:mcp [--size=100k] [--iterations=300]`.
 * On the cached SQLite site of bench:threads (built under bench/.data/ when missing), times the
 * author's Thread list with folds four ways, interleaved round by round: in-process
 * (`engine.threads.list({ fold: true })`), through the Fetch handler (`GET /api/threads?include=fold`),
 * as a `tools/call` of `site_threads_list` with `fold: true` posted to `/api/mcp` through the same
 * handler, and the same call made by the official SDK client (Streamable HTTP transport, its
 * fetch pointed at the handler). See bench/README.md § MCP.
 */
import { ownerCaller } from "../packages/core/src/caller.js";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine } from "../packages/core/src/engine.js";
import { apiLinks, createHandler } from "../packages/http-adapter/src/index.js";
// The SDK is a dependency of the MCP adapter, not of the workspace root.
import { Client } from "../packages/mcp-adapter/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
import { StreamableHTTPClientTransport } from "../packages/mcp-adapter/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js";
import { createMcpHandler } from "../packages/mcp-adapter/src/index.js";
import { label, parseSize } from "./bench-args.js";
import { measureTogether, ms, type Timing } from "./measure.js";
import { readOnlyStorage } from "./read-only-storage.js";
import { benchReport } from "./report.js";
import { openSqliteSite } from "./sqlite-site.js";

const dataDir = new URL("./.data/", import.meta.url).pathname;
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const size = parseSize(args.size ?? "100k");
const iterations = Number(args.iterations ?? 300);
const warmup = Math.ceil(iterations / 10);
const report = benchReport("bench:mcp");
const { log } = report;

const site = await openSqliteSite(`${dataDir}threads-${label(size)}.sqlite`, size, log);
// In-process answers name the handler's addresses too (contentUrl), so all four read the same page.
const engine = createEngine({
  db: await openDatabase({ url: site.file }),
  storage: readOnlyStorage,
  links: apiLinks(""),
});
const handler = createHandler(engine, { authenticate: () => ownerCaller, mcp: createMcpHandler(engine) });

const listUrl = "http://localhost/api/threads?include=fold";
const toolCall = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "site_threads_list", arguments: { fold: true } },
});
const post = () =>
  handler(
    new Request("http://localhost/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", "mcp-protocol-version": "2025-06-18" },
      body: toolCall,
    }),
  );

// The four must read the same page, or their ratio means nothing.
const direct = JSON.parse(JSON.stringify(await engine.threads.list({ fold: true }, ownerCaller)));
const overHttp = await (await handler(new Request(listUrl))).json();
const overMcp = (await (await post()).json()).result.structuredContent;
const client = new Client({ name: "bench", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
    fetch: (url, init) => handler(new Request(url, init)),
  }),
);
const overSdk = (await client.callTool({ name: "site_threads_list", arguments: { fold: true } }))
  .structuredContent;
for (const [name, page] of Object.entries({ overHttp, overMcp, overSdk })) {
  if (JSON.stringify(page) !== JSON.stringify(direct)) {
    const a = JSON.stringify(page);
    const b = JSON.stringify(direct);
    let i = 0;
    while (a[i] === b[i]) i++;
    throw new Error(
      `${name} read a different page: ${a.slice(i - 80, i + 80)} vs ${b.slice(i - 80, i + 80)}`,
    );
  }
}
const replies = direct.threads.reduce(
  (sum: number, thread: { fold?: { leading: unknown[]; trailing: unknown[] } }) =>
    sum + (thread.fold ? thread.fold.leading.length + thread.fold.trailing.length : 0),
  0,
);
log(
  `\nSQLite, ${label(size)} posts: first page of the author's Thread list with folds (${direct.threads.length} Threads, ${replies} replies in folds, ${JSON.stringify(direct).length} bytes of JSON)`,
);

const timings = await measureTogether(
  {
    inProcess: () => engine.threads.list({ fold: true }, ownerCaller),
    handler: async () => (await handler(new Request(listUrl))).text(),
    mcp: async () => (await post()).text(),
    sdk: () => client.callTool({ name: "site_threads_list", arguments: { fold: true } }),
  },
  { warmup, iterations },
);

const row = (name: string, timing: Timing) =>
  `  ${name.padEnd(44)} ${ms(timing.p50).padStart(7)} ${ms(timing.p99).padStart(7)}   ${(timing.p50 / timings.handler.p50).toFixed(2)}×`;
log(`  ${"ms".padEnd(44)} ${"p50".padStart(7)} ${"p99".padStart(7)}   p50 / Fetch handler`);
log(row("in-process engine.threads.list", timings.inProcess));
log(row("Fetch handler GET /api/threads?include=fold", timings.handler));
log(row("POST /api/mcp tools/call (fold: true)", timings.mcp));
log(row("SDK client callTool over the handler", timings.sdk));
log(
  `  tools/call overhead over in-process, p50: ${ms(timings.mcp.p50 - timings.inProcess.p50)} ms; over the Fetch handler: ${ms(timings.mcp.p50 - timings.handler.p50)} ms`,
);

// The fixed cost of a call, without a heavy read: one post by ID, and an MCP ping.
const postId = direct.threads[0].id as string;
const getCall = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "site_posts_get", arguments: { id: postId } },
});
const mcpPost = (body: string) =>
  handler(
    new Request("http://localhost/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    }),
  );
const small = await measureTogether(
  {
    inProcess: () => engine.posts.get({ id: postId }, ownerCaller),
    handler: async () => (await handler(new Request(`http://localhost/api/posts/${postId}`))).text(),
    mcp: async () => (await mcpPost(getCall)).text(),
    ping: async () => (await mcpPost('{"jsonrpc":"2.0","id":1,"method":"ping"}')).text(),
  },
  { warmup, iterations },
);
const smallRow = (name: string, timing: Timing) =>
  `  ${name.padEnd(44)} ${ms(timing.p50).padStart(7)} ${ms(timing.p99).padStart(7)}   ${(timing.p50 / small.handler.p50).toFixed(2)}×`;
log(`
One post by ID (${postId}): the fixed cost of a call`);
log(`  ${"ms".padEnd(44)} ${"p50".padStart(7)} ${"p99".padStart(7)}   p50 / Fetch handler`);
log(smallRow("in-process engine.posts.get", small.inProcess));
log(smallRow("Fetch handler GET /api/posts/:id", small.handler));
log(smallRow("POST /api/mcp tools/call site_posts_get", small.mcp));
log(smallRow("POST /api/mcp ping", small.ping));

await client.close();
await engine.close();
site.close();
report.save();
