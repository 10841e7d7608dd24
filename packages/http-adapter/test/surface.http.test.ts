import { describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

describe("authentication", () => {
  it("needs a valid Bearer token on /api/*", async () => {
    const s = await createTestSite();
    for (const authorization of ["", "Bearer wrong", "Basic abc", "Bearer "]) {
      const res = await s.call("GET", "/api/posts", undefined, { authorization });
      expectError(res, 401, "UNAUTHORIZED");
    }
    const created = await s.engine.tokens.create({ name: "t" });
    const ok = await s.call("GET", "/api/posts", undefined, { authorization: `Bearer ${created.token}` });
    expect(ok.status).toBe(200);
    await s.engine.tokens.revoke({ id: created.id });
    expect(
      (await s.call("GET", "/api/posts", undefined, { authorization: `Bearer ${created.token}` })).status,
    ).toBe(401);
  });

  it("accepts DEV_API_TOKEN only for local hosts from this machine", async () => {
    const s = await createTestSite({ clientAddress: () => "127.0.0.1" });
    const call = (host: string) =>
      s.handler(
        new Request(`http://${host}/api/posts`, { headers: { authorization: "Bearer dev-token", host } }),
      );
    for (const host of ["localhost:3000", "127.0.0.1", "[::1]:8080", "blog.localtest.me"]) {
      expect((await call(host)).status, host).toBe(200);
    }
    for (const host of ["example.com", "localtest.me.evil.com", "10.0.0.1"]) {
      expect((await call(host)).status, host).toBe(401);
    }
    const remote = await createTestSite({ clientAddress: () => "203.0.113.9" });
    const res = await remote.handler(
      new Request("http://localhost/api/posts", { headers: { authorization: "Bearer dev-token" } }),
    );
    expect(res.status).toBe(401);
    const unknown = await createTestSite({ clientAddress: () => undefined });
    expect((await unknown.call("GET", "/api/posts")).status).toBe(401);
  });

  it("lets an embedding app map its own session to the owner", async () => {
    const s = await createTestSite({
      devApiToken: undefined,
      authenticate: (request) => (request.headers.get("cookie") === "session=ok" ? { role: "owner" } : null),
    });
    expect(
      (await s.call("GET", "/api/posts", undefined, { authorization: "", cookie: "session=ok" })).status,
    ).toBe(200);
    expect(
      (await s.call("GET", "/api/posts", undefined, { authorization: "", cookie: "session=no" })).status,
    ).toBe(401);
  });

  it("serves /api/internal/* only with INTERNAL_ADMIN_TOKEN, and 404 when unset", async () => {
    const without = await createTestSite();
    const hidden = await without.call("GET", "/api/internal/tokens");
    expectError(hidden, 404, "NOT_FOUND");
    const s = await createTestSite({ internalAdminToken: "internal-secret-token" });
    expect((await s.call("GET", "/api/internal/tokens")).status).toBe(401);
    const created = await s.call(
      "POST",
      "/api/internal/tokens",
      { name: "cli" },
      { authorization: "Bearer internal-secret-token" },
    );
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^quire_/);
    const listed = await s.call("GET", "/api/internal/tokens", undefined, {
      authorization: "Bearer internal-secret-token",
    });
    expect(listed.body.tokens).toHaveLength(1);
    expect(listed.body.tokens[0]).not.toHaveProperty("token");
    expect(
      (await s.call("GET", "/api/posts", undefined, { authorization: `Bearer ${created.body.token}` }))
        .status,
    ).toBe(200);
  });

  it("closes every /api/public/* path when the public API is disabled", async () => {
    const s = await createTestSite({ engineConfig: { settings: { publicApiEnabled: false } } });
    await s.call("POST", "/api/posts", { format: "note", slug: "p" });
    for (const path of ["/api/public/posts/p", "/api/public/posts/missing"]) {
      const res = await s.call("GET", path);
      expectError(res, 404, "NOT_FOUND");
    }
  });
});

describe("conventions", () => {
  it("answers unknown /api paths with NOT_FOUND in the error shape", async () => {
    const s = await createTestSite();
    for (const [method, path] of [
      ["GET", "/api/nothing"],
      ["GET", "/api"],
      ["PATCH", "/api/nothing"],
      ["GET", "/api/posts/x/y/z"],
      ["GET", "/api/public/nothing"],
    ] as const) {
      const res = await s.call(method, path);
      expectError(res, 404, "NOT_FOUND", `${method} ${path}`);
    }
  });

  it("turns unexpected failures into INTERNAL_ERROR without leaking details", async () => {
    const logged: unknown[] = [];
    const s = await createTestSite({
      logger: { info() {}, warn() {}, error: (_m, fields) => logged.push(fields) },
    });
    await s.engine.context.db.schema.dropTable("posts").execute();
    const res = await s.call("GET", "/api/posts");
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal error", code: "INTERNAL_ERROR" });
    expect(logged).toHaveLength(1);
  });

  it("answers /healthz and /readyz", async () => {
    const s = await createTestSite();
    expect((await s.call("GET", "/healthz", undefined, { authorization: "" })).body).toEqual({
      status: "ok",
    });
    expect((await s.call("GET", "/readyz", undefined, { authorization: "" })).status).toBe(200);
    await s.engine.close();
    const res = await s.handler(new Request("http://localhost/readyz"));
    expect(res.status).toBe(503);
  });
});

describe("SITE_PATH_PREFIX", () => {
  it("serves the API under the prefix and includes it in permalinks and content URLs", async () => {
    const s = await createTestSite({ engineConfig: { settings: { sitePathPrefix: "/blog" } } });
    const created = await s.call("POST", "/blog/api/posts", {
      format: "note",
      slug: "p",
      attachments: [{ type: "text", content: "x" }],
    });
    expect(created.status).toBe(201);
    expect(created.body.attachments[0].contentUrl).toMatch(/^\/blog\/api\/attachments\/med_/);
    expect((await s.call("GET", created.body.attachments[0].contentUrl)).status).toBe(200);
    expect((await s.call("GET", "/blog/api/public/posts/p")).body.permalink).toBe("/blog/p");
    expect((await s.call("GET", "/api/posts")).status).toBe(404);
    expect((await s.call("GET", "/blog/healthz")).status).toBe(200);
  });
});

describe("CORS", () => {
  const preflight = (s: TestSite, origin: string) =>
    s.handler(
      new Request("http://localhost/api/posts", {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization",
        },
      }),
    );

  it("allows all origins when unset or *", async () => {
    const s = await createTestSite();
    const res = await s.call("GET", "/api/posts", undefined, { origin: "https://a.example" });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const pre = await preflight(s, "https://a.example");
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-methods")).toContain("PUT");
  });

  it("allows only listed origins, and none when empty", async () => {
    const s = await createTestSite({ corsOrigins: "https://a.example, https://b.example" });
    const allowed = await s.call("GET", "/api/posts", undefined, { origin: "https://b.example" });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://b.example");
    const denied = await s.call("GET", "/api/posts", undefined, { origin: "https://c.example" });
    expect(denied.headers.get("access-control-allow-origin")).toBeNull();
    const off = await createTestSite({ corsOrigins: "" });
    expect(
      (await off.call("GET", "/api/posts", undefined, { origin: "https://a.example" })).headers.get(
        "access-control-allow-origin",
      ),
    ).toBeNull();
    expect((await preflight(off, "https://a.example")).headers.get("access-control-allow-origin")).toBeNull();
  });
});
