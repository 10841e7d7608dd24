import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, sessionCookie } from "../src/app.js";
import { createMemorySessions } from "../src/sessions.js";

describe("Quire mounted in a Hono app", () => {
  let engine: Engine;
  let cleanup: () => Promise<void>;
  let app: Hono;
  let ownerCookie: string;
  let readerCookie: string;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "quire-hono-"));
    const storage = createFsStorage({ root: join(dir, "media"), publicBaseUrl: "/media" });
    ({ engine, cleanup } = await createTestEngine({ storage }));
    const sessions = createMemorySessions();
    app = createApp({ engine, sessions, storage });
    ownerCookie = `${sessionCookie}=${sessions.create({ name: "Ada", siteOwner: true })}`;
    readerCookie = `${sessionCookie}=${sessions.create({ name: "Bob", siteOwner: false })}`;
  });
  afterAll(async () => {
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const createPost = (headers: Record<string, string>) =>
    app.request("/api/posts", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ format: "note", title: "From the app", bodyMarkdown: "Written *inside* Hono" }),
    });

  it("keeps the app's own routes working", async () => {
    const home = await app.request("/");
    expect(home.status).toBe(200);
    expect(await home.text()).toMatch(/My app/);
    const me = await app.request("/me", { headers: { cookie: ownerCookie } });
    expect(await me.json()).toEqual({ name: "Ada", siteOwner: true });
  });

  it("creates a post with the app's session cookie and reads it publicly", async () => {
    const created = await createPost({ cookie: ownerCookie });
    expect(created.status).toBe(201);
    const post = (await created.json()) as { id: string; slug: string };
    expect(post.slug).toBe("from-the-app");

    const read = await app.request(`/api/public/posts/${post.slug}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: post.id, bodyHtml: "<p>Written <em>inside</em> Hono</p>" });

    // The same post, in-process: the engine behind the handler is the app's.
    expect(await engine.posts.get({ id: post.id })).toMatchObject({ title: "From the app" });
  });

  it("uploads media with the owner's session and serves the file under /media", async () => {
    const form = new FormData();
    form.set("file", new Blob([new Uint8Array([9, 8, 7])], { type: "application/pdf" }), "notes.pdf");
    const uploaded = await app.request("/api/upload", {
      method: "POST",
      headers: { cookie: ownerCookie },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const { url } = (await uploaded.json()) as { url: string };
    expect(url).toMatch(/^\/media\//);
    const file = await app.request(url);
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(new Uint8Array([9, 8, 7]));
  });

  it.each([
    ["no cookie", () => ({})],
    ["an unknown session", () => ({ cookie: `${sessionCookie}=forged` })],
    ["the session of a user who is not the site owner", () => ({ cookie: readerCookie })],
  ])("answers 401 UNAUTHORIZED with %s", async (_label, headers: () => Record<string, string>) => {
    const response = await createPost(headers());
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: expect.any(String), code: "UNAUTHORIZED" });
  });

  it("does not let another site's page write with the owner's cookie", async () => {
    const response = await createPost({ cookie: ownerCookie, origin: "https://evil.example" });
    expect(response.status).toBe(401);
    const sameOrigin = await createPost({ cookie: ownerCookie, origin: "http://localhost" });
    expect(sameOrigin.status).toBe(201);
  });

  it("answers unknown /api paths in Quire's error shape and leaves other paths to the app", async () => {
    const api = await app.request("/api/nope");
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ code: "NOT_FOUND" });
    expect((await app.request("/not-an-app-route")).status).toBe(404);
    expect((await app.request("/healthz")).status).toBe(200);
  });
});
