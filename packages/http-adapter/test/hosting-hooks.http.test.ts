import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEngine, type EngineHooks } from "@quire/core";
import { fixedClock, openTestDatabase, sequentialIds } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { createHandler } from "../src/index.js";
import { assertErrorShape, expectError } from "./helpers.js";
import { formBody, pngFile } from "./uploads-fixtures.js";

/** A site with a folder store, hooks the test switches, and its handler (dev token, admin token, a stub MCP). */
async function openHostedSite() {
  const { db, cleanup } = await openTestDatabase();
  const root = await mkdtemp(path.join(tmpdir(), "quire-hosted-"));
  onTestFinished(async () => {
    await cleanup();
    await rm(root, { recursive: true, force: true });
  });
  const state = { available: true, quotaBytes: Number.POSITIVE_INFINITY };
  const hooks: EngineHooks = {
    siteAvailable: () => state.available,
    mediaQuota: async ({ bytes, storedBytes }) => {
      const stored = await storedBytes();
      return bytes === null ? stored < state.quotaBytes : stored + bytes <= state.quotaBytes;
    },
  };
  const engine = createEngine({
    db,
    clock: fixedClock(),
    ids: sequentialIds(),
    storage: createFsStorage({ root, publicBaseUrl: "/media" }),
    hooks,
  });
  await engine.migrate();
  const handler = createHandler(engine, {
    devApiToken: "dev-token",
    internalAdminToken: "admin-secret",
    clientAddress: () => "127.0.0.1",
    mcp: async () => new Response("{}", { headers: { "content-type": "application/json" } }),
  });
  const send = async (method: string, url: string, body?: BodyInit, headers: Record<string, string> = {}) => {
    const response = await handler(
      new Request(`http://localhost${url}`, {
        method,
        headers: { authorization: "Bearer dev-token", ...headers },
        ...(body === undefined ? {} : { body }),
      }),
    );
    const text = await response.text();
    const parsed = text === "" ? null : JSON.parse(text);
    assertErrorShape(response.status, parsed);
    return { status: response.status, headers: response.headers, body: parsed };
  };
  const stored = async () =>
    (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  return { engine, state, send, stored };
}

describe("a suspended site (siteAvailable hook false)", () => {
  it("answers 503 SITE_UNAVAILABLE on the owner, public and MCP surfaces, with or without auth; internal routes stay open", async () => {
    const site = await openHostedSite();
    const post = await site.engine.posts.create({ format: "note", bodyMarkdown: "Hello." });
    site.state.available = false;
    const json = { "content-type": "application/json" };
    const refused: [string, string, string | undefined, Record<string, string>][] = [
      ["GET", "/api/posts", undefined, {}],
      ["GET", "/api/posts", undefined, { authorization: "" }],
      ["PUT", `/api/posts/${post.id}`, JSON.stringify({ bodyMarkdown: "Changed." }), json],
      ["POST", "/api/posts", "{not json", json],
      ["GET", "/api/public/threads", undefined, { authorization: "" }],
      ["GET", `/api/public/posts/${post.slug}`, undefined, { authorization: "" }],
      ["POST", "/api/mcp", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), json],
      [
        "POST",
        "/api/uploads/init",
        JSON.stringify({ filename: "a.png", contentType: "image/png", size: 1 }),
        json,
      ],
    ];
    for (const [method, url, body, headers] of refused) {
      expectError(await site.send(method, url, body, headers), 503, "SITE_UNAVAILABLE", `${method} ${url}`);
    }
    expect((await site.engine.execute("posts.get", { id: post.id }, { role: "internal" })).bodyText).toBe(
      "Hello.",
    );
    // The operator's routes work, and still need the admin token.
    const admin = { authorization: "Bearer admin-secret" };
    expect((await site.send("GET", "/api/internal/tokens", undefined, admin)).status).toBe(200);
    expect(
      (await site.send("POST", "/api/internal/search/reindex", "{}", { ...admin, ...json })).status,
    ).toBe(200);
    expectError(await site.send("GET", "/api/internal/tokens"), 401, "UNAUTHORIZED");
    // Process health is not the site's.
    expect((await site.send("GET", "/healthz")).status).toBe(200);
    // Unknown paths stay unknown.
    expectError(await site.send("GET", "/api/nothing-here"), 404, "NOT_FOUND");

    site.state.available = true;
    expect((await site.send("GET", "/api/posts")).status).toBe(200);
    expect((await site.send("POST", "/api/mcp", "{}", json)).status).toBe(200);
  });
});

describe("the media quota (mediaQuota hook)", () => {
  it("answers 409 MEDIA_QUOTA_EXCEEDED at upload init and for a one-shot upload, storing nothing", async () => {
    const site = await openHostedSite();
    const png = pngFile(4, 3, 2048);
    site.state.quotaBytes = 3000;
    const json = { "content-type": "application/json" };
    const init = await site.send(
      "POST",
      "/api/uploads/init",
      JSON.stringify({ filename: "big.png", contentType: "image/png", size: 3001 }),
      json,
    );
    expectError(init, 409, "MEDIA_QUOTA_EXCEEDED");
    expect(await site.engine.context.db.selectFrom("upload_sessions").selectAll().execute()).toEqual([]);

    const upload = async (name: string) => {
      const { body, contentType } = formBody([
        { name: "file", filename: name, type: "image/png", data: png },
      ]);
      return site.send("POST", "/api/upload", body as BodyInit, { "content-type": contentType });
    };
    expect((await upload("one.png")).status).toBe(201);
    expectError(await upload("two.png"), 409, "MEDIA_QUOTA_EXCEEDED");
    expect(await site.stored()).toHaveLength(1);
    expect(await site.engine.context.db.selectFrom("media").select("original_name").execute()).toEqual([
      { original_name: "one.png" },
    ]);
  });
});
