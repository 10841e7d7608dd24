import { PassThrough } from "node:stream";
import { ownerCaller } from "@quire/core";
import { afterEach, describe, expect, it } from "vitest";
import { serveStdio } from "../src/index.js";
import { createMcpSite, type McpSite } from "./support.js";

/**
 * `serveStdio` on in-memory streams: what a local agent's client writes to `quire mcp` and reads
 * back, line by line. (parity.test.ts drives the real command with the SDK's stdio client.)
 */
interface StdioSession {
  site: McpSite;
  /** Writes raw bytes to the server's stdin. */
  write(bytes: string | Uint8Array): void;
  /** The next `count` answers, parsed, in order. */
  answers(count: number): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

let session: StdioSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

async function open(config: { uploadMaxBytes?: number } = {}): Promise<StdioSession> {
  const site = await createMcpSite({ config });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  const waiting: (() => void)[] = [];
  let pending = "";
  stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      lines.push(pending.slice(0, end));
      pending = pending.slice(end + 1);
    }
    for (const wake of waiting.splice(0)) wake();
  });
  const served = serveStdio(site.engine, ownerCaller, { stdin, stdout });
  return {
    site,
    write: (bytes) => stdin.write(bytes),
    async answers(count) {
      const deadline = Date.now() + 10_000;
      while (lines.length < count && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return lines.splice(0, count).map((line) => JSON.parse(line));
    },
    async close() {
      stdin.end();
      await served;
      await site.close();
    },
  };
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const ping = (id: number | string) => line({ jsonrpc: "2.0", id, method: "ping" });
const initialize = line({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

describe("MCP over stdio", () => {
  it("answers every line it cannot read with its JSON-RPC error, as the HTTP endpoint does, and keeps reading", async () => {
    session = await open();
    session.write(initialize);
    expect((await session.answers(1))[0]).toMatchObject({ id: 0, result: { protocolVersion: "2025-06-18" } });
    // Before, each of these got no answer at all: the SDK's transport reports them to no one.
    session.write("not json\n");
    session.write("[1, 2]\n");
    session.write('{"jsonrpc":"2.0","id":3,"method":"ping","extra":1}\n');
    session.write('{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":5}}\n');
    session.write('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n');
    session.write('{"jsonrpc":"1.0","id":6,"method":"ping"}\n');
    session.write("\n   \n");
    session.write(ping(7));
    expect(await session.answers(7)).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error: the line is not valid JSON" },
      },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Batch requests are not supported" } },
      {
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32600, message: "Invalid request: only jsonrpc, id, method and params" },
      },
      {
        jsonrpc: "2.0",
        id: 4,
        error: {
          code: -32602,
          message:
            "MCP error -32602: Invalid params for ping: params._meta: Invalid input: expected object, received number",
        },
      },
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: "Invalid request: id must be a string or an integer of at most 2^53 - 1",
        },
      },
      { jsonrpc: "2.0", id: 6, error: { code: -32600, message: 'Invalid request: jsonrpc must be "2.0"' } },
      { jsonrpc: "2.0", id: 7, result: {} },
    ]);
  });

  it("answers a message over the size limit with an error and reads the next one (the SDK closed the connection)", async () => {
    session = await open({ uploadMaxBytes: 1024 });
    const limit = Math.ceil(1024 / 3) * 4 + 1024 * 1024;
    session.write(initialize);
    await session.answers(1);
    // The oversized line arrives in pieces, as a pipe delivers it, and the next message in its last piece.
    const big = line({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { _meta: { pad: "x".repeat(limit) } },
    });
    for (let at = 0; at < big.length; at += 65_536) session.write(big.slice(at, at + 65_536));
    session.write(ping(2));
    expect(await session.answers(2)).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: `Invalid request: a message may be at most ${limit} bytes` },
      },
      { jsonrpc: "2.0", id: 2, result: {} },
    ]);
  });

  it("reads lines split anywhere, several in one chunk, a character split between chunks, and CRLF", async () => {
    session = await open();
    const create = line({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "site_posts_create", arguments: { format: "note", title: "日本の夏" } },
    });
    const bytes = new TextEncoder().encode(`${initialize}${create.replace("\n", "\r\n")}${ping(2)}`);
    // One byte at a time: "日" (three bytes in UTF-8) is split across three chunks.
    for (const byte of bytes) session.write(Uint8Array.of(byte));
    // Requests run side by side: the ping may be answered before the create.
    const byId = (answers: Record<string, unknown>[]) =>
      [...answers].sort((a, b) => Number(a.id) - Number(b.id));
    const [first, created, pong] = byId(await session.answers(3));
    expect(first).toMatchObject({ id: 0 });
    expect(created).toMatchObject({ id: 1, result: { structuredContent: { title: "日本の夏" } } });
    expect(pong).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect((await session.site.engine.posts.list({})).posts.map((post) => post.title)).toEqual(["日本の夏"]);
  });

  it("refuses an argument named __proto__ over stdio too, creating nothing", async () => {
    session = await open();
    session.write(initialize);
    await session.answers(1);
    session.write(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"site_posts_create","arguments":{"format":"note","title":"x","__proto__":{"a":1}}}}\n',
    );
    const [answer] = await session.answers(1);
    expect(answer).toMatchObject({
      id: 1,
      result: { isError: true, structuredContent: { code: "VALIDATION_ERROR" } },
    });
    expect((await session.site.engine.posts.list({})).posts).toEqual([]);
  });
});
