import { randomBytes } from "node:crypto";
import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeBridge, type FetchHandler } from "../src/node-bridge.js";

describe("createNodeBridge", () => {
  let server: Server | undefined;
  const errors: unknown[] = [];

  async function serve(
    handler: FetchHandler,
    options: { bodyIdleMs?: number } = {},
  ): Promise<{ port: number; bridge: ReturnType<typeof createNodeBridge> }> {
    const bridge = createNodeBridge(handler, { onError: (error) => errors.push(error), ...options });
    server = createServer(bridge.listener);
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    return { port: (server.address() as AddressInfo).port, bridge };
  }

  afterEach(async () => {
    errors.length = 0;
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("hands the handler the body as a stream before the client has finished sending it", async () => {
    let firstChunkSeen!: () => void;
    const firstChunk = new Promise<void>((resolve) => {
      firstChunkSeen = resolve;
    });
    const { port } = await serve(async (request) => {
      let bytes = 0;
      for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        firstChunkSeen();
      }
      return Response.json({ bytes });
    });
    const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path: "/upload" });
    const answer = new Promise<string>((resolve, reject) => {
      req.on("response", (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
    });
    req.write(Buffer.alloc(1000, 1));
    await firstChunk; // the handler has bytes while the request is still open
    req.end(Buffer.alloc(2000, 2));
    expect(JSON.parse(await answer)).toEqual({ bytes: 3000 });
  });

  it("streams a response body out as the handler produces it", async () => {
    const { port } = await serve(async () => {
      let n = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          n += 1;
          if (n > 3) controller.close();
          else controller.enqueue(new TextEncoder().encode(`part${n};`));
        },
      });
      return new Response(body, { headers: { "content-type": "text/plain" } });
    });
    const response = await fetch(`http://127.0.0.1:${port}/`);
    expect(await response.text()).toBe("part1;part2;part3;");
  });

  it("passes method, URL, headers and the remote address, and keeps every Set-Cookie", async () => {
    let seen: { method: string; url: string; custom: string | null; address: string | undefined } | undefined;
    const { port, bridge } = await serve(async (request) => {
      seen = {
        method: request.method,
        url: request.url,
        custom: request.headers.get("x-custom"),
        address: bridge.remoteAddress(request),
      };
      const headers = new Headers();
      headers.append("set-cookie", "a=1");
      headers.append("set-cookie", "b=2");
      return new Response("ok", { headers });
    });
    const response = await fetch(`http://127.0.0.1:${port}/a/b?c=d`, {
      method: "PUT",
      body: "x",
      headers: { "x-custom": "yes" },
    });
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(seen).toEqual({
      method: "PUT",
      url: `http://127.0.0.1:${port}/a/b?c=d`,
      custom: "yes",
      address: "127.0.0.1",
    });
  });

  it("keeps a path that starts with two slashes a path", async () => {
    let url = "";
    const { port } = await serve(async (request) => {
      url = request.url;
      return new Response("ok");
    });
    await new Promise<void>((resolve, reject) => {
      httpRequest({ host: "127.0.0.1", port, path: "//evil.example/x" }, (res) => {
        res.resume();
        res.on("end", resolve);
      })
        .on("error", reject)
        .end();
    });
    expect(new URL(url).host).toBe(`127.0.0.1:${port}`);
    expect(new URL(url).pathname).toBe("//evil.example/x");
  });

  it("drains a body the handler never read, so the connection serves the next request", async () => {
    const { port } = await serve(
      async (request) => new Response(`seen ${new URL(request.url).pathname}`, { status: 401 }),
    );
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (path: string, body: Buffer) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path, agent }, (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on("error", reject);
        req.end(body);
      });
    expect(await send("/first", Buffer.alloc(4 * 1024 * 1024))).toEqual({ status: 401, text: "seen /first" });
    expect(await send("/second", Buffer.alloc(10))).toEqual({ status: 401, text: "seen /second" });
    agent.destroy();
  });

  it("gives the handler the raw body from the socket as it arrives, every byte of it", async () => {
    let firstChunkSeen!: () => void;
    const firstChunk = new Promise<void>((resolve) => {
      firstChunkSeen = resolve;
    });
    let received: Buffer | undefined;
    const { port, bridge } = await serve(async (request) => {
      const body = bridge.rawBody(request);
      if (!body) {
        firstChunkSeen();
        return Response.json({ error: "no raw body" }, { status: 500 });
      }
      const chunks: Uint8Array[] = [];
      for await (const chunk of body) {
        chunks.push(chunk);
        firstChunkSeen();
      }
      received = Buffer.concat(chunks);
      return Response.json({ bytes: received.byteLength });
    });
    const req = httpRequest({ host: "127.0.0.1", port, method: "PUT", path: "/upload" });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on("response", (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", reject);
    });
    const first = randomBytes(1000);
    const rest = randomBytes(200_000);
    req.write(first);
    await firstChunk; // the handler has bytes while the request is still open
    req.end(rest);
    const { status, text } = await answer;
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ bytes: 201_000 });
    expect(received?.equals(Buffer.concat([first, rest]))).toBe(true);
  });

  it("has no raw body for GET and HEAD", async () => {
    const seen: Record<string, boolean> = {};
    const { port, bridge } = await serve(async (request) => {
      seen[request.method] = bridge.rawBody(request) === undefined;
      return new Response("ok");
    });
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/`, { method: "HEAD" })).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "x" })).status).toBe(200);
    expect(seen).toEqual({ GET: true, HEAD: true, POST: false });
  });

  it("leaves a raw body the handler stopped reading to be drained: the client gets its 400, the connection lives on", async () => {
    const reads: number[] = [];
    const { port, bridge } = await serve(async (request) => {
      const body = bridge.rawBody(request);
      if (!body) return new Response(`seen ${new URL(request.url).pathname}`);
      let bytes = 0;
      for await (const chunk of body) {
        bytes += chunk.byteLength;
        break; // as the engine does once a body passes its declared size
      }
      reads.push(bytes);
      return Response.json({ error: "Too many bytes", code: "VALIDATION_ERROR" }, { status: 400 });
    });
    let connections = 0;
    server?.on("connection", () => {
      connections += 1;
    });
    const clientErrors: unknown[] = [];
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: Buffer) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest({ host: "127.0.0.1", port, method, path, agent }, (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on("error", (error) => {
          clientErrors.push(error);
          reject(error);
        });
        req.end(body);
      });
    try {
      const first = await send("PUT", "/first", Buffer.alloc(4 * 1024 * 1024, 7));
      expect(first.status).toBe(400);
      expect(JSON.parse(first.text)).toEqual({ error: "Too many bytes", code: "VALIDATION_ERROR" });
      expect(reads).toHaveLength(1);
      expect(reads[0]).toBeGreaterThan(0);
      expect(reads[0]).toBeLessThan(4 * 1024 * 1024);
      const second = await send("GET", "/second");
      expect(second).toEqual({ status: 200, text: "seen /second" });
      expect(connections).toBe(1); // the second request went over the first one's connection
      expect(clientErrors).toEqual([]); // the rest of the first body was drained, not reset
      expect(errors).toEqual([]);
    } finally {
      agent.destroy();
    }
  });

  describe("a body that stops arriving (bodyIdleMs)", () => {
    /** A handler that reads the whole body after `waitMs` and answers its size, or records why it could not. */
    function bodyCounter(outcomes: string[], waitMs = 0): FetchHandler {
      return async (request) => {
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        let bytes = 0;
        try {
          for await (const chunk of (request.body ?? []) as unknown as AsyncIterable<Uint8Array>)
            bytes += chunk.byteLength;
        } catch {
          outcomes.push(`read failed after ${bytes} bytes`);
          throw new Error("the client went away");
        }
        outcomes.push(`read ${bytes} bytes`);
        return Response.json({ bytes });
      };
    }

    /** Sends `chunks` (each after `everyMs`), then ends the body unless `stall`; resolves how the exchange ended. */
    function sendSlowly(port: number, chunks: Buffer[], everyMs: number, stall = false) {
      return new Promise<string>((resolve) => {
        const total = chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0);
        const req = httpRequest({
          host: "127.0.0.1",
          port,
          method: "PUT",
          path: "/upload",
          headers: { "content-length": String(stall ? total + 1 : total) },
        });
        req.on("response", (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on("end", () => resolve(`${res.statusCode} ${text}`));
        });
        req.on("error", (error: NodeJS.ErrnoException) => resolve(`closed (${error.code})`));
        let sent = 0;
        const next = () => {
          const chunk = chunks[sent++];
          if (chunk === undefined) {
            if (!stall) req.end();
            return;
          }
          req.write(chunk);
          setTimeout(next, everyMs);
        };
        next();
      });
    }

    it("closes the connection once the client stops sending for that long, and the handler's read fails", async () => {
      const outcomes: string[] = [];
      const { port } = await serve(bodyCounter(outcomes), { bodyIdleMs: 300 });
      // 1,000 bytes of a declared 1,001, then silence.
      expect(await sendSlowly(port, [Buffer.alloc(1000, 1)], 0, true)).toMatch(/^closed/);
      await expect.poll(() => outcomes).toEqual(["read failed after 1000 bytes"]);
    });

    it("lets a body that keeps arriving take many times that long", async () => {
      const outcomes: string[] = [];
      const { port } = await serve(bodyCounter(outcomes), { bodyIdleMs: 400 });
      const chunks = Array.from({ length: 12 }, () => Buffer.alloc(100, 2));
      expect(await sendSlowly(port, chunks, 100)).toBe('200 {"bytes":1200}');
      expect(outcomes).toEqual(["read 1200 bytes"]);
    });

    it("does not count the handler's own time, nor a body it holds back by not reading yet", async () => {
      const outcomes: string[] = [];
      const { port } = await serve(bodyCounter(outcomes, 900), { bodyIdleMs: 200 });
      // 8 MiB at once: Node stops reading the socket until the handler starts on the body.
      const big = Buffer.alloc(8 * 1024 * 1024, 3);
      expect(await sendSlowly(port, [big], 0)).toBe(`200 {"bytes":${big.byteLength}}`);
      const slowGet = await fetch(`http://127.0.0.1:${port}/`);
      expect(slowGet.status).toBe(200);
      expect(outcomes).toEqual([`read ${big.byteLength} bytes`, "read 0 bytes"]);
    });

    it("adds nothing that outlives a request on a keep-alive connection", async () => {
      const outcomes: string[] = [];
      const { port } = await serve(bodyCounter(outcomes), { bodyIdleMs: 60_000 });
      const sockets: import("node:net").Socket[] = [];
      server?.on("connection", (socket) => sockets.push(socket));
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const post = () =>
        new Promise<void>((resolve, reject) => {
          const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path: "/", agent }, (res) => {
            res.resume();
            res.on("end", () => resolve());
          });
          req.on("error", reject);
          req.setHeader("content-length", "5");
          req.flushHeaders();
          // The body after the headers, so the request is not complete when the handler starts.
          setTimeout(() => req.end("hello"), 5);
        });
      try {
        const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
        await post();
        const closeListeners = sockets[0]?.listenerCount("close");
        const timersAfterOne = timers();
        for (let n = 0; n < 30; n++) await post();
        expect(sockets).toHaveLength(1);
        expect(sockets[0]?.listenerCount("close")).toBe(closeListeners);
        expect(timers()).toBeLessThanOrEqual(timersAfterOne);
        expect(outcomes).toHaveLength(31);
      } finally {
        agent.destroy();
      }
    });

    it("is off by default", async () => {
      const outcomes: string[] = [];
      const { port } = await serve(bodyCounter(outcomes));
      const chunks = [Buffer.alloc(10, 4), Buffer.alloc(10, 4)];
      // A pause of 600 ms mid-body is far past any limit the tests above set.
      expect(await sendSlowly(port, chunks, 600)).toBe('200 {"bytes":20}');
    });
  });

  it("turns a handler that throws into a 500 in the spec's error shape and reports it", async () => {
    const { port } = await serve(async () => {
      throw new Error("boom");
    });
    const response = await fetch(`http://127.0.0.1:${port}/`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: expect.any(String), code: "INTERNAL_ERROR" });
    expect(errors).toHaveLength(1);
  });

  it("answers a request it cannot read (an invalid Host) with a 400 in the spec's shape, reporting nothing", async () => {
    let reached = false;
    const { port } = await serve(async () => {
      reached = true;
      return new Response("never");
    });
    for (const host of ["a b", "exa mple.com:80", "x/y"]) {
      const raw = await rawRequest(
        port,
        `GET /api/posts HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      expect(raw, host).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({
        error: expect.any(String),
        code: "VALIDATION_ERROR",
        details: { formErrors: [expect.any(String)], fieldErrors: {} },
      });
    }
    expect(reached).toBe(false);
    expect(errors).toEqual([]);
  });

  it("sends no body for HEAD", async () => {
    const { port } = await serve(async () => new Response("body", { headers: { "content-length": "4" } }));
    const response = await fetch(`http://127.0.0.1:${port}/`, { method: "HEAD" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe("4");
    expect(await response.text()).toBe("");
  });
});

/** Sends bytes as they are (no client-side checks) and returns everything the server answers. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(text));
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}
