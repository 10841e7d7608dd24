import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine, Storage } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { fetchMiddleware } from "../src/fetch-bridge.js";

const token = "express-dev-token";

describe("Quire mounted in an Express app", () => {
  let engine: Engine;
  let cleanup: () => Promise<void>;
  let server: Server;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "quire-express-"));
    const storage: Storage = createFsStorage({ root: join(dir, "media"), publicBaseUrl: "/media" });
    ({ engine, cleanup } = await createTestEngine({ storage }));
    server = createApp({ engine, storage, devApiToken: token }).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const auth = { authorization: `Bearer ${token}` };

  it("creates a post under the /api mount (the full path reaches Quire) and reads it publicly", async () => {
    const created = await fetch(`${base}/api/posts`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ format: "note", title: "From Express", bodyMarkdown: "Written *in* Express" }),
    });
    expect(created.status).toBe(201);
    const post = (await created.json()) as { slug: string };
    const read = await fetch(`${base}/api/public/posts/${post.slug}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ bodyHtml: "<p>Written <em>in</em> Express</p>" });
  });

  it("uploads media through the storage and serves the file under /media", async () => {
    const form = new FormData();
    form.set("file", new Blob([new Uint8Array([1, 2, 3, 4])], { type: "application/pdf" }), "a.pdf");
    const uploaded = await fetch(`${base}/api/upload`, { method: "POST", headers: auth, body: form });
    expect(uploaded.status).toBe(201);
    const media = (await uploaded.json()) as { url: string };
    const file = await fetch(new URL(media.url, base));
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3, 4]));
  });

  it("answers Quire's errors and leaves the app's own routes (with their body parser) alone", async () => {
    expect((await fetch(`${base}/api/posts`, { method: "POST", body: "{}" })).status).toBe(401);
    const unknown = await fetch(`${base}/api/nope`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "NOT_FOUND" });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(base)).text()).toMatch(/My Express app/);
    const feedback = await fetch(`${base}/feedback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ok: true }),
    });
    expect(await feedback.json()).toEqual({ received: { ok: true } });
  });

  it("refuses a body that a parser mounted before Quire already read", async () => {
    const app = express();
    app.use(express.json());
    app.use(
      "/api",
      fetchMiddleware(async () => new Response("reached Quire")),
    );
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ error: error.message });
    });
    const wrong = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => wrong.once("listening", resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(wrong.address() as AddressInfo).port}/api/posts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: expect.stringMatching(/before express\.json/) });
    } finally {
      await new Promise((resolve) => wrong.close(resolve));
    }
  });
});
