import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import type { Socket } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSite, runProcess, type ServerProcess, startServerProcess } from "./support/processes.js";

const devToken = "dev-token-for-tests";
const onPostgres = process.env.QUIRE_TEST_DATABASE === "postgres";

/** A request to the server through node:http, so the Host header can be chosen. */
function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      method: options.method ?? "GET",
      path: options.path,
      headers: options.headers,
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

describe("the reference server on a real port", () => {
  let site: Awaited<ReturnType<typeof createTestSite>>;
  let server: ServerProcess;
  const api = (pathname: string, init: RequestInit = {}) => fetch(`${server.url}${pathname}`, init);
  const asDev = (init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { authorization: `Bearer ${devToken}`, "content-type": "application/json", ...init.headers },
  });
  const cli = (...args: string[]) => runProcess("src/cli.ts", args, site.env);

  beforeAll(async () => {
    site = await createTestSite();
    // A body that stops arriving for a second is cut (the default is a minute).
    server = await startServerProcess({
      ...site.env,
      DEV_API_TOKEN: devToken,
      REQUEST_BODY_IDLE_SECONDS: "1",
    });
  });

  afterAll(async () => {
    if (server.child.exitCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    await site.cleanup();
  });

  it("answers /healthz and /readyz", async () => {
    const health = await api("/healthz");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await api("/readyz");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ok" });
  });

  let slug: string;
  let attachmentUrl: string;

  it("creates a post with DEV_API_TOKEN from this machine and reads it publicly", async () => {
    const body = {
      format: "note",
      bodyMarkdown: "Hello from the **server** test",
      attachments: [{ type: "text", content: "# Notes\n\nSome attached text." }],
    };
    const created = await api("/api/posts", asDev({ method: "POST", body: JSON.stringify(body) }));
    expect(created.status).toBe(201);
    const post = (await created.json()) as { slug: string; attachments: { url: string }[] };
    slug = post.slug;
    attachmentUrl = post.attachments[0]?.url ?? "";
    const read = await api(`/api/public/posts/${slug}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      slug,
      bodyHtml: "<p>Hello from the <strong>server</strong> test</p>",
    });
  });

  it("answers 401 UNAUTHORIZED without a token", async () => {
    const response = await api("/api/posts", { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: expect.any(String), code: "UNAUTHORIZED" });
  });

  it("refuses DEV_API_TOKEN on a request to a non-local host name", async () => {
    const headers = { authorization: `Bearer ${devToken}`, host: "blog.example.com" };
    const response = await rawRequest(server.port, { path: "/api/posts", headers });
    expect(response.status).toBe(401);
    const local = await rawRequest(server.port, {
      path: "/api/posts",
      headers: { ...headers, host: "localhost" },
    });
    expect(local.status).toBe(200);
  });

  it("answers an unknown /api path with 404 NOT_FOUND", async () => {
    const response = await api("/api/no-such-thing");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: expect.any(String), code: "NOT_FOUND" });
  });

  it("hides /api/internal/* while INTERNAL_ADMIN_TOKEN is unset", async () => {
    const response = await api("/api/internal/tokens", {
      headers: { authorization: "Bearer anything-at-all-here" },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("serves local media with its type, nosniff, ETag, long caching and byte ranges", async () => {
    expect(attachmentUrl).toMatch(/^\/media\/attachments\/med_[0-9a-z]+\.md$/);
    const whole = await api(attachmentUrl);
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe("# Notes\n\nSome attached text.");
    expect(whole.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(whole.headers.get("x-content-type-options")).toBe("nosniff");
    expect(whole.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const etag = whole.headers.get("etag") ?? "";
    expect(etag).not.toBe("");

    const part = await api(attachmentUrl, { headers: { range: "bytes=2-6" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 2-6/28");
    expect(await part.text()).toBe("Notes");

    const tooFar = await api(attachmentUrl, { headers: { range: "bytes=500-" } });
    expect(tooFar.status).toBe(416);
    expect(tooFar.headers.get("content-range")).toBe("bytes */28");

    expect((await api(attachmentUrl, { headers: { "if-none-match": etag } })).status).toBe(304);
    expect((await api("/media/attachments/missing.md")).status).toBe(404);
    expect((await api("/media/.tmp/anything")).status).toBe(404);
    expect((await api(attachmentUrl, { method: "DELETE" })).status).toBe(405);
  });

  it("accepts a token created with the CLI until it is revoked", async () => {
    const created = await cli("token", "create", "e2e test");
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/only this once/);
    const token = /quire_tok_[0-9a-z]{26}\.[A-Za-z0-9_-]+/.exec(created.stdout)?.[0] ?? "";
    const id = /tok_[0-9a-z]{26}/.exec(token)?.[0] ?? "";
    expect(token).not.toBe("");

    const bearer = { headers: { authorization: `Bearer ${token}` } };
    expect((await api("/api/posts", bearer)).status).toBe(200);

    const list = await cli("token", "list");
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain("e2e test");
    expect(list.stdout).not.toContain(token);

    const revoked = await cli("token", "revoke", id);
    expect(revoked.code).toBe(0);
    expect((await api("/api/posts", bearer)).status).toBe(401);
  }, 90_000);

  it("takes bodies from the socket: a relay file, bodies over their limits drained for the next request, a one-shot form", async () => {
    type Session = { id: string; transport: { kind: string; method: string; url: string } };
    type Media = { url: string } & Record<string, unknown>;
    const bearer = { authorization: `Bearer ${devToken}` };
    const init = async (filename: string, size: number): Promise<Session> => {
      const body = JSON.stringify({ filename, contentType: "application/octet-stream", size });
      const response = await api("/api/uploads/init", asDev({ method: "POST", body }));
      expect(response.status).toBe(200);
      return (await response.json()) as Session;
    };
    const complete = (id: string) =>
      api(`/api/uploads/${id}/complete`, asDev({ method: "POST", body: "{}" }));
    const download = async (media: Media) => {
      expect(media.url).toMatch(/^\/media\//);
      const response = await fetch(new URL(media.url, server.url));
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    };

    // relay: the whole file in one PUT, then complete
    const file = randomBytes(5 * 1024 * 1024 + 7);
    const relay = await init("notes.bin", file.byteLength);
    expect(relay).toEqual({
      id: expect.stringMatching(/^upl_[0-9a-z]+$/),
      transport: { kind: "relay", method: "PUT", url: `/api/uploads/${relay.id}/body` },
    });
    const put = await fetch(new URL(relay.transport.url, server.url), {
      method: relay.transport.method,
      headers: { ...bearer, "content-type": "application/octet-stream" },
      body: file,
    });
    expect(put.status).toBe(204);
    const completed = await complete(relay.id);
    expect(completed.status).toBe(201);
    const media = (await completed.json()) as Media;
    expect(media).toMatchObject({
      id: expect.stringMatching(/^med_[0-9a-z]+$/),
      postId: null,
      type: "media",
      mediaKind: "document",
      mimeType: "application/octet-stream",
      originalName: "notes.bin",
      size: file.byteLength,
      url: expect.any(String),
    });
    expect((await download(media)).equals(file)).toBe(true);

    // more bytes than declared, chunked (no Content-Length): the client gets the 400, nothing is
    // kept, and the connection, drained rather than reset, carries the next requests
    const short = await init("short.bin", 1000);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets: Socket[] = [];
    const send = (method: string, path: string, contentType: string, chunks: Uint8Array[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest({
          host: "127.0.0.1",
          port: server.port,
          method,
          path,
          agent,
          headers: { ...bearer, "content-type": contentType },
        });
        req.on("socket", (socket) => sockets.push(socket));
        req.on("response", (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    try {
      const chunks = [randomBytes(256 * 1024), randomBytes(256 * 1024), randomBytes(256 * 1024)];
      const tooLong = await send("PUT", short.transport.url, "application/octet-stream", chunks);
      expect(tooLong.status).toBe(400);
      expect(JSON.parse(tooLong.body)).toMatchObject({ error: expect.any(String), code: "VALIDATION_ERROR" });
      const notSent = await send("POST", `/api/uploads/${short.id}/complete`, "application/json", [
        Buffer.from("{}"),
      ]);
      expect(notSent.status).toBe(400);
      expect(JSON.parse(notSent.body)).toMatchObject({
        error: expect.any(String),
        code: "VALIDATION_ERROR",
        details: { fieldErrors: { body: expect.any(Array) } },
      });
      // the same for a JSON body over the 10 MiB cap
      const megabyte = Buffer.alloc(1024 * 1024, "a");
      const json = [
        Buffer.from('{"format":"note","bodyMarkdown":"'),
        ...Array(12).fill(megabyte),
        Buffer.from('"}'),
      ];
      const tooBig = await send("POST", "/api/posts", "application/json", json);
      expect(tooBig.status).toBe(400);
      expect(JSON.parse(tooBig.body)).toMatchObject({
        error: expect.stringMatching(/larger than/),
        code: "VALIDATION_ERROR",
      });
      const after = await send("POST", `/api/uploads/${short.id}/complete`, "application/json", [
        Buffer.from("{}"),
      ]);
      expect(after.status).toBe(400);
      expect(sockets).toHaveLength(4);
      for (const socket of sockets) expect(socket).toBe(sockets[0]);
    } finally {
      agent.destroy();
    }

    // one-shot multipart/form-data
    const text = "# Notes\n\nUploaded in one request, ünïcödé included.\n";
    const form = new FormData();
    form.append("alt", "Some notes");
    form.append("file", new File([text], "notes.txt", { type: "text/plain" }));
    const oneShot = await api("/api/upload", { method: "POST", headers: bearer, body: form });
    expect(oneShot.status).toBe(201);
    const note = (await oneShot.json()) as Media;
    expect(note).toMatchObject({
      id: expect.stringMatching(/^med_[0-9a-z]+$/),
      postId: null,
      type: "media",
      mediaKind: "document",
      mimeType: "text/plain",
      originalName: "notes.txt",
      size: Buffer.byteLength(text),
      alt: "Some notes",
      url: expect.any(String),
    });
    expect((await download(note)).toString("utf8")).toBe(text);
  });

  it("closes the connection of an upload whose body stops arriving, and the upload can be sent again", async () => {
    const file = randomBytes(256 * 1024);
    const body = JSON.stringify({
      filename: "stalled.bin",
      contentType: "application/octet-stream",
      size: file.byteLength,
    });
    const session = (await (await api("/api/uploads/init", asDev({ method: "POST", body }))).json()) as {
      id: string;
      transport: { method: string; url: string };
    };
    const target = new URL(session.transport.url, server.url);
    // Half the file, then silence: the server closes the connection (no answer can follow).
    const stalled = await new Promise<string>((resolve) => {
      const req = httpRequest({
        host: "127.0.0.1",
        port: server.port,
        method: session.transport.method,
        path: target.pathname,
        headers: {
          authorization: `Bearer ${devToken}`,
          "content-type": "application/octet-stream",
          "content-length": String(file.byteLength),
        },
      });
      req.on("response", (res) => resolve(`answered ${res.statusCode}`));
      req.on("error", (error: NodeJS.ErrnoException) => resolve(`closed (${error.code})`));
      req.write(file.subarray(0, file.byteLength / 2));
    });
    expect(stalled).toMatch(/^closed/);
    // The session is still open: the whole file goes through, and completes.
    const put = await fetch(target, {
      method: session.transport.method,
      headers: { authorization: `Bearer ${devToken}`, "content-type": "application/octet-stream" },
      body: file,
    });
    expect(put.status).toBe(204);
    const completed = await api(`/api/uploads/${session.id}/complete`, asDev({ method: "POST", body: "{}" }));
    expect(completed.status).toBe(201);
    expect(((await completed.json()) as { size: number }).size).toBe(file.byteLength);
  });

  it("lets an in-flight request finish on SIGTERM, then exits 0 with the database closed", async () => {
    const body = JSON.stringify({ format: "note", bodyMarkdown: "Sent across the shutdown" });
    const req = httpRequest({
      host: "127.0.0.1",
      port: server.port,
      method: "POST",
      path: "/api/posts",
      headers: {
        host: "localhost",
        authorization: `Bearer ${devToken}`,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
      },
    });
    const response = new Promise<number>((resolve, reject) => {
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
    });
    req.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));
    server.child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.child.exitCode).toBeNull();
    req.end(body.slice(10));
    expect(await response).toBe(201);
    expect(await server.exited).toBe(0);
    if (!onPostgres) expect(existsSync(path.join(site.dataDir, "quire.db-wal"))).toBe(false);
  });
});

describe("the reference server with the public API off, an admin token and a path prefix", () => {
  const adminToken = "internal-admin-token-0123456789";
  let site: Awaited<ReturnType<typeof createTestSite>>;
  let server: ServerProcess;

  beforeAll(async () => {
    site = await createTestSite();
    server = await startServerProcess({
      ...site.env,
      PUBLIC_API_ENABLED: "false",
      INTERNAL_ADMIN_TOKEN: adminToken,
      SITE_PATH_PREFIX: "/blog",
    });
  });

  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    await site.cleanup();
  });

  it("prints its URL with the prefix and serves under it", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/blog$/);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/no-such-thing`)).status).toBe(404);
  });

  it("answers 404 on the public API", async () => {
    const response = await fetch(`${server.url}/api/public/posts/anything`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "NOT_FOUND" });
  });

  it("manages API tokens through /api/internal/tokens with the admin token only", async () => {
    const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
    const created = await fetch(`${server.url}/api/internal/tokens`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "from the admin API" }),
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const posts = await fetch(`${server.url}/api/posts`, { headers: { authorization: `Bearer ${token}` } });
    expect(posts.status).toBe(200);
    const wrong = await fetch(`${server.url}/api/internal/tokens`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(wrong.status).toBe(401);
  });
});

describe("the reference server with a bad configuration", () => {
  it("exits non-zero and names the variable", async () => {
    const result = await runProcess("src/main.ts", [], {
      PUBLIC_API_ENABLED: "yes",
      DATA_DIR: "/nonexistent/never",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Configuration error: PUBLIC_API_ENABLED\b/m);
    expect(result.stdout).not.toMatch(/listening/);
  });
});
