import { describe, expect, it } from "vitest";
import { createTestSite, expectError } from "./helpers.js";

const admin = { authorization: "Bearer admin-secret" };
const json = { "content-type": "application/json" };

/** Every internal admin route with a request that is valid when the token is right. */
const internalRoutes: [method: string, path: string, body?: unknown][] = [
  ["GET", "/api/internal/tokens"],
  ["POST", "/api/internal/tokens", { name: "CI" }],
  ["DELETE", "/api/internal/tokens/tok_00000000000000000000000000"],
  ["GET", "/api/internal/tokens/health"],
  ["POST", "/api/internal/tokens/purge", { unusedDays: 30, dryRun: true }],
  ["POST", "/api/internal/uploads/cleanup", {}],
  ["POST", "/api/internal/search/reindex", {}],
  ["POST", "/api/internal/posts/rebuild-html", { dryRun: true }],
];

describe("/api/internal/* without INTERNAL_ADMIN_TOKEN", () => {
  it("answers 404 as if absent, to every caller", async () => {
    const site = await createTestSite();
    for (const [method, path, body] of internalRoutes) {
      expectError(await site.call(method, path, body, json), 404, "NOT_FOUND", `${method} ${path} (owner)`);
      expectError(
        await site.call(method, path, body, { ...json, ...admin }),
        404,
        "NOT_FOUND",
        `${method} ${path} (a would-be admin token)`,
      );
    }
    expect(await site.engine.context.db.selectFrom("api_tokens").selectAll().execute()).toEqual([]);
  });

  it("answers 404, not 405, to a method no route has: a 405's Allow would name the absent routes", async () => {
    const site = await createTestSite();
    for (const [method, path] of [
      ["PUT", "/api/internal/tokens"],
      ["GET", "/api/internal/search/reindex"],
      ["GET", "/api/internal/uploads/cleanup"],
    ] as const) {
      const response = await site.call(method, path, method === "PUT" ? {} : undefined, json);
      expectError(response, 404, "NOT_FOUND", `${method} ${path}`);
      expect(response.headers.get("allow")).toBeNull();
    }
    // The public surface closed by PUBLIC_API_ENABLED=false is absent the same way; the owner's is not.
    await site.call("PUT", "/api/settings", { PUBLIC_API_ENABLED: "false" });
    expectError(await site.call("DELETE", "/api/public/threads"), 404, "NOT_FOUND");
    const open = await site.call("DELETE", "/api/threads");
    expectError(open, 405, "METHOD_NOT_ALLOWED");
    expect(open.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});

describe("/api/internal/* with INTERNAL_ADMIN_TOKEN", () => {
  it("answers 405 to a method no route has, naming the ones it has", async () => {
    const site = await createTestSite({ internalAdminToken: "admin-secret" });
    const response = await site.call("GET", "/api/internal/search/reindex", undefined, admin);
    expectError(response, 405, "METHOD_NOT_ALLOWED");
    expect(response.headers.get("allow")).toBe("POST, OPTIONS");
  });

  it("refuses without the token, with the owner's token and with a wrong one (401), changing nothing", async () => {
    const site = await createTestSite({ internalAdminToken: "admin-secret" });
    const owner = await site.engine.tokens.create({ name: "owner" });
    for (const [method, path, body] of internalRoutes) {
      for (const [label, headers] of [
        ["no token", { authorization: "" }],
        ["dev token", {}],
        ["an API token", { authorization: `Bearer ${owner.token}` }],
        ["wrong token", { authorization: "Bearer admin-secreT" }],
      ] as const) {
        const response = await site.call(method, path, body, { ...json, ...headers });
        expectError(response, 401, "UNAUTHORIZED", `${method} ${path} (${label})`);
      }
    }
    expect((await site.engine.tokens.list({})).tokens.map((token) => token.id)).toEqual([owner.id]);
  });

  it("token health and purge", async () => {
    const site = await createTestSite({ internalAdminToken: "admin-secret" });
    const start = site.clock.now();
    const old = await site.engine.tokens.create({ name: "old" });
    site.clock.set(start + 200 * 86_400);
    const fresh = await site.engine.tokens.create({ name: "fresh" });

    const health = await site.call("GET", "/api/internal/tokens/health?staleDays=30", undefined, admin);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      total: 2,
      active: 1,
      stale: 1,
      staleDays: 30,
      oldestCreatedAt: start,
    });

    const dry = await site.call(
      "POST",
      "/api/internal/tokens/purge",
      { unusedDays: 30, dryRun: true },
      { ...json, ...admin },
    );
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({
      dryRun: true,
      purged: 1,
      tokens: [expect.objectContaining({ id: old.id, name: "old", createdAt: start })],
    });
    expect((await site.engine.tokens.list({})).tokens).toHaveLength(2);

    const purged = await site.call(
      "POST",
      "/api/internal/tokens/purge",
      { unusedDays: 30 },
      { ...json, ...admin },
    );
    expect(purged.body).toMatchObject({ dryRun: false, purged: 1 });
    expect((await site.engine.tokens.list({})).tokens.map((token) => token.id)).toEqual([fresh.id]);
  });

  it("bad input is a 400 naming the field and deletes nothing", async () => {
    const site = await createTestSite({ internalAdminToken: "admin-secret" });
    await site.engine.tokens.create({ name: "kept" });
    const headers = { ...json, ...admin };
    const cases: [string, string, unknown, string][] = [
      ["POST", "/api/internal/tokens/purge", {}, "unusedDays"],
      ["POST", "/api/internal/tokens/purge", { unusedDays: 0 }, "unusedDays"],
      ["POST", "/api/internal/tokens/purge", { unusedDays: "30" }, "unusedDays"],
      ["POST", "/api/internal/tokens/purge", { unusedDays: 30, dryRun: "yes" }, "dryRun"],
      ["POST", "/api/internal/uploads/cleanup", { sweep: 1 }, "sweep"],
      ["POST", "/api/internal/search/reindex", { cursor: "not-a-cursor" }, "cursor"],
      ["POST", "/api/internal/search/reindex", { limit: "ten" }, "limit"],
      ["POST", "/api/internal/posts/rebuild-html", { cursor: 5 }, "cursor"],
      ["POST", "/api/internal/posts/rebuild-html", { cursor: "eyJ4IjoxfQ" }, "cursor"],
    ];
    for (const [method, path, body, field] of cases) {
      const response = await site.call(method, path, body, headers);
      expectError(response, 400, "VALIDATION_ERROR", `${path} ${JSON.stringify(body)}`);
      expect(Object.keys(response.body.details.fieldErrors), `${path} ${JSON.stringify(body)}`).toEqual([
        field,
      ]);
    }
    expectError(
      await site.call("GET", "/api/internal/tokens/health?staleDays=abc", undefined, admin),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await site.call("POST", "/api/internal/tokens/purge", "[1]", headers),
      400,
      "VALIDATION_ERROR",
    );
    expect((await site.engine.tokens.list({})).tokens).toHaveLength(1);
  });

  it("upload cleanup, search reindex and body HTML rebuild answer what they did", async () => {
    const site = await createTestSite({ internalAdminToken: "admin-secret" });
    const headers = { ...json, ...admin };
    const a = await site.engine.posts.create({
      format: "note",
      title: "Harbour",
      bodyMarkdown: "Boats *here*.",
    });
    const b = await site.engine.posts.create({ format: "note", title: "Hill", bodyMarkdown: "Sheep." });
    const { db } = site.engine.context;
    const before = await db
      .selectFrom("posts")
      .select(["id", "body_html", "updated_at", "slug"])
      .orderBy("id")
      .execute();
    await db.updateTable("posts").set({ body_html: "<p>stale</p>" }).where("id", "=", a.id).execute();
    await db.deleteFrom("post_search").execute();

    const cleanup = await site.call("POST", "/api/internal/uploads/cleanup", undefined, admin);
    expect(cleanup.status).toBe(200);
    expect(cleanup.body).toEqual({ expired: 0, removed: 0, swept: 0 });

    const first = await site.call("POST", "/api/internal/search/reindex", { limit: 1 }, headers);
    expect(first.body).toEqual({ processed: 1, indexed: 1, nextCursor: expect.any(String) });
    const second = await site.call(
      "POST",
      "/api/internal/search/reindex",
      { cursor: first.body.nextCursor, limit: 1 },
      headers,
    );
    expect(second.body).toEqual({ processed: 1, indexed: 1, nextCursor: null });
    const found = await site.call("GET", "/api/search?q=harbour");
    expect(JSON.stringify(found.body)).toContain(a.id);

    const dry = await site.call("POST", "/api/internal/posts/rebuild-html", { dryRun: true }, headers);
    expect(dry.body).toEqual({
      dryRun: true,
      scanned: 2,
      changed: 1,
      unchanged: 1,
      skipped: 0,
      changedIds: [a.id],
      skippedIds: [],
      nextCursor: null,
    });
    const rebuilt = await site.call("POST", "/api/internal/posts/rebuild-html", {}, headers);
    expect(rebuilt.body).toMatchObject({ dryRun: false, changed: 1, changedIds: [a.id] });
    const after = await db
      .selectFrom("posts")
      .select(["id", "body_html", "updated_at", "slug"])
      .orderBy("id")
      .execute();
    expect(after).toEqual(before);
    expect((await site.call("GET", `/api/posts/${b.id}`)).body.updatedAt).toBe(b.updatedAt);
  });
});
