import { createEngine } from "@quire/core";
import type { KyselyPlugin } from "kysely";
import { describe, expect, it } from "vitest";
import { createHandler } from "../src/index.js";
import { createTestSite, expectError } from "./helpers.js";

describe("GET /api/settings", () => {
  it("answers every key with the value in effect and its source; needs a session or token", async () => {
    const site = await createTestSite({ engineConfig: { settings: { siteName: "Env name" } } });
    const answer = await site.call("GET", "/api/settings");
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(["settings", "sources"]);
    expect(answer.body.settings).toMatchObject({
      SITE_NAME: "Env name",
      SITE_LANGUAGE: "en",
      TIME_ZONE: "UTC",
      PUBLIC_API_ENABLED: "true",
      PAGE_SIZE: "25",
    });
    for (const value of Object.values(answer.body.settings)) expect(typeof value).toBe("string");
    expect(answer.body.sources).toMatchObject({ SITE_NAME: "environment", TIME_ZONE: "default" });
    expectError(
      await site.call("GET", "/api/settings", undefined, { authorization: "" }),
      401,
      "UNAUTHORIZED",
    );
    expectError(
      await site.call("PUT", "/api/settings", { SITE_NAME: "x" }, { authorization: "Bearer wrong" }),
      401,
      "UNAUTHORIZED",
    );
  });
});

describe("PUT /api/settings", () => {
  it("stores canonical values and answers the settings in effect", async () => {
    const site = await createTestSite();
    const answer = await site.call("PUT", "/api/settings", {
      SITE_NAME: "My notes",
      SITE_LANGUAGE: "pt-br",
      TIME_ZONE: "europe/paris",
      ADDITIONAL_LANGUAGES: "EN, fr",
      MULTILINGUAL_ENABLED: "true",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).not.toHaveProperty("rejectedKeys");
    expect(answer.body.settings).toMatchObject({
      SITE_NAME: "My notes",
      SITE_LANGUAGE: "pt-BR",
      TIME_ZONE: "Europe/Paris",
      ADDITIONAL_LANGUAGES: "en,fr",
      MULTILINGUAL_ENABLED: "true",
    });
    expect((await site.call("GET", "/api/settings")).body.settings).toEqual(answer.body.settings);
  });

  it("lists unknown and environment-only keys in rejectedKeys; all rejected is 400 with details.rejectedKeys", async () => {
    const site = await createTestSite();
    const partly = await site.call("PUT", "/api/settings", {
      NOINDEX: "true",
      FOO: "1",
      SITE_PATH_PREFIX: "/x",
    });
    expect(partly.status).toBe(200);
    expect(partly.body.rejectedKeys).toEqual(["FOO", "SITE_PATH_PREFIX"]);
    expect(partly.body.settings.NOINDEX).toBe("true");
    const none = await site.call("PUT", "/api/settings", { FOO: "1", BAR: "2" });
    expectError(none, 400, "VALIDATION_ERROR");
    expect(none.body.details.rejectedKeys).toEqual(["FOO", "BAR"]);
    // Nothing to change: rejectedKeys too, empty (it was left out).
    const empty = await site.call("PUT", "/api/settings", {});
    expectError(empty, 400, "VALIDATION_ERROR");
    expect(empty.body.details.rejectedKeys).toEqual([]);
  });

  it("refuses bad input with a 400 and changes nothing, not even the valid keys beside it", async () => {
    const site = await createTestSite();
    const before = (await site.call("GET", "/api/settings")).body;
    const bad: [string, unknown][] = [
      ["SITE_LANGUAGE", "en_US"],
      ["SITE_LANGUAGE", "not a tag"],
      ["TIME_ZONE", "Mars/Olympus"],
      ["TIME_ZONE", "+02:00"],
      ["PAGE_SIZE", 25],
      ["NOINDEX", true],
      ["SITE_NAME", null],
      ["SITE_NAME", { text: "x" }],
      ["ADDITIONAL_LANGUAGES", "en"],
      ["MULTILINGUAL_ENABLED", "true"],
      ["PUBLIC_API_ENABLED", "yes"],
      ["ARCHIVE_DEFAULT_LAYOUT", "masonry"],
    ];
    for (const [key, value] of bad) {
      const body =
        key === "SITE_NAME"
          ? { FOOTER: "x", SITE_FOOTER: "kept?", [key]: value }
          : { SITE_NAME: "kept?", [key]: value };
      const answer = await site.call("PUT", "/api/settings", body);
      expectError(answer, 400, "VALIDATION_ERROR", `${key}=${JSON.stringify(value)}`);
      expect(Object.keys(answer.body.details.fieldErrors), `${key}=${JSON.stringify(value)}`).toContain(key);
    }
    for (const body of ['["SITE_NAME","x"]', '"SITE_NAME"', "{not json", "42"]) {
      expectError(await site.call("PUT", "/api/settings", body), 400, "VALIDATION_ERROR", body);
    }
    expect((await site.call("GET", "/api/settings")).body).toEqual(before);
  });

  it("refuses to drop a language posts are written in: 409 LANGUAGE_IN_USE", async () => {
    const site = await createTestSite();
    await site.call("PUT", "/api/settings", { ADDITIONAL_LANGUAGES: "fr" });
    expect(
      (await site.call("POST", "/api/posts", { format: "note", title: "Salut", language: "fr" })).status,
    ).toBe(201);
    expectError(
      await site.call("PUT", "/api/settings", { ADDITIONAL_LANGUAGES: "" }),
      409,
      "LANGUAGE_IN_USE",
    );
    expectError(await site.call("DELETE", "/api/settings/ADDITIONAL_LANGUAGES"), 409, "LANGUAGE_IN_USE");
    expect((await site.call("GET", "/api/settings")).body.settings.ADDITIONAL_LANGUAGES).toBe("fr");
  });
});

describe("PUT /api/settings/import", () => {
  it("writes only the language keys and answers { settings, sources, rejectedKeys }", async () => {
    const site = await createTestSite();
    const exported = (await site.call("GET", "/api/settings")).body.settings;
    const answer = await site.call("PUT", "/api/settings/import", {
      ...exported,
      SITE_NAME: "Imported",
      ADDITIONAL_LANGUAGES: "de",
      MULTILINGUAL_ENABLED: "true",
    });
    expect(answer.status).toBe(200);
    expect(answer.body.settings).toMatchObject({
      SITE_NAME: "Quire",
      ADDITIONAL_LANGUAGES: "de",
      MULTILINGUAL_ENABLED: "true",
    });
    expect(answer.body.rejectedKeys).toContain("SITE_NAME");
    expect(answer.body.rejectedKeys).not.toContain("ADDITIONAL_LANGUAGES");
    expect(answer.body.sources).toMatchObject({ SITE_NAME: "default", ADDITIONAL_LANGUAGES: "stored" });
    expectError(
      await site.call("PUT", "/api/settings/import", { ADDITIONAL_LANGUAGES: "en" }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await site.call("PUT", "/api/settings/import", "[]"), 400, "VALIDATION_ERROR");
    // A key it does not import is listed whatever its value (a number was a 400).
    const odd = await site.call("PUT", "/api/settings/import", { SITE_NAME: 5, FOO: { a: 1 } });
    expect(odd.status, JSON.stringify(odd.body)).toBe(200);
    expect(odd.body.rejectedKeys).toEqual(["SITE_NAME", "FOO"]);
  });
});

describe("DELETE /api/settings/:key", () => {
  it("removes the override and answers like GET; unknown key 404; environment-only key 400", async () => {
    const site = await createTestSite({ engineConfig: { settings: { pageSize: 40 } } });
    await site.call("PUT", "/api/settings", { PAGE_SIZE: "10" });
    const answer = await site.call("DELETE", "/api/settings/PAGE_SIZE");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual((await site.call("GET", "/api/settings")).body);
    expect(answer.body.settings.PAGE_SIZE).toBe("40");
    expect(answer.body.sources.PAGE_SIZE).toBe("environment");
    expectError(await site.call("DELETE", "/api/settings/NOPE"), 404, "NOT_FOUND");
    // However long (a key over 100 characters was a 400).
    expectError(await site.call("DELETE", `/api/settings/${"A".repeat(101)}`), 404, "NOT_FOUND");
    const fixed = await site.call("DELETE", "/api/settings/SITE_PATH_PREFIX");
    expectError(fixed, 400, "VALIDATION_ERROR");
    expect(fixed.body.details.rejectedKeys).toEqual(["SITE_PATH_PREFIX"]);
  });
});

describe("settings take effect at once", () => {
  it("PUBLIC_API_ENABLED=false closes every public route; true opens them again", async () => {
    const site = await createTestSite();
    await site.call("POST", "/api/posts", { format: "note", title: "Hello" });
    const publicPaths = [
      "/api/public/threads",
      "/api/public/posts/hello",
      "/api/public/threads/hello",
      "/api/public/threads/hello/posts",
    ];
    for (const path of publicPaths)
      expect((await site.call("GET", path, undefined, { authorization: "" })).status, path).toBe(200);
    await site.call("PUT", "/api/settings", { PUBLIC_API_ENABLED: "false" });
    for (const path of publicPaths) {
      expectError(await site.call("GET", path, undefined, { authorization: "" }), 404, "NOT_FOUND", path);
      // The owner's token does not open them either.
      expectError(await site.call("GET", path), 404, "NOT_FOUND", path);
    }
    expect((await site.call("GET", "/api/threads")).status).toBe(200);
    await site.call("DELETE", "/api/settings/PUBLIC_API_ENABLED");
    for (const path of publicPaths)
      expect((await site.call("GET", path, undefined, { authorization: "" })).status, path).toBe(200);
  });

  it("TIME_ZONE moves the year filter", async () => {
    const site = await createTestSite();
    const eve = Date.UTC(2024, 0, 1, 3) / 1000; // 22:00 on 31 Dec 2023 in New York
    await site.call("POST", "/api/posts", { format: "note", title: "Eve", publishedAt: eve, createdAt: eve });
    const count = async (year: number) =>
      (await site.call("GET", `/api/public/threads?year=${year}`, undefined, { authorization: "" })).body
        .threads.length;
    expect([await count(2023), await count(2024)]).toEqual([0, 1]);
    await site.call("PUT", "/api/settings", { TIME_ZONE: "America/New_York" });
    expect([await count(2023), await count(2024)]).toEqual([1, 0]);
  });

  it("another engine's handler on the same database follows on its next request, without a settings query per request", async () => {
    const site = await createTestSite();
    // A second engine on the first one's database (another process, say).
    const second = createEngine({ db: site.engine.context.db });
    const handler = createHandler(second);
    const get = async () => (await handler(new Request("http://localhost/api/public/threads"))).status;
    expect(await get()).toBe(200);
    await site.call("PUT", "/api/settings", { PUBLIC_API_ENABLED: "false" });
    expect(await get()).toBe(404);
    await site.call("PUT", "/api/settings", { PUBLIC_API_ENABLED: "true" });
    expect(await get()).toBe(200);
  });

  it("serving requests reads the settings table only after the settings version moved, not once per request", async () => {
    const site = await createTestSite();
    const reads = { count: 0 };
    const counted = createEngine({ db: site.engine.context.db.withPlugin(settingsReadCounter(reads)) });
    const handler = createHandler(counted, { devApiToken: "dev-token", clientAddress: () => "127.0.0.1" });
    const owner = { authorization: "Bearer dev-token" };
    for (let i = 0; i < 5; i++) {
      expect((await handler(new Request("http://localhost/api/public/threads"))).status).toBe(200);
      expect((await handler(new Request("http://localhost/api/threads", { headers: owner }))).status).toBe(
        200,
      );
    }
    expect(reads.count).toBe(1);
    // A post written through another engine moves the site version only: no read.
    await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "Hello" });
    for (let i = 0; i < 3; i++) {
      expect((await handler(new Request("http://localhost/api/public/threads"))).status).toBe(200);
    }
    expect(reads.count).toBe(1);
    // A settings write through another engine moves the settings version: one more read, then none.
    await site.call("PUT", "/api/settings", { SITE_NAME: "Elsewhere" });
    for (let i = 0; i < 3; i++) {
      expect((await handler(new Request("http://localhost/api/public/threads"))).status).toBe(200);
    }
    expect(reads.count).toBe(2);
    const put = await handler(
      new Request("http://localhost/api/settings", {
        method: "PUT",
        headers: { ...owner, "content-type": "application/json" },
        body: JSON.stringify({ PUBLIC_API_ENABLED: "false" }),
      }),
    );
    expect(put.status).toBe(200);
    expect((await handler(new Request("http://localhost/api/public/threads"))).status).toBe(404);
  });
});

/** A Kysely plugin counting SELECTs from the settings table (an observer on the real database). */
function settingsReadCounter(reads: { count: number }): KyselyPlugin {
  return {
    transformQuery(args) {
      const node = args.node as {
        kind: string;
        from?: { froms: { kind: string; table?: { identifier?: { name?: string } } }[] };
      };
      if (
        node.kind === "SelectQueryNode" &&
        node.from?.froms.some((from) => from.table?.identifier?.name === "settings")
      ) {
        reads.count += 1;
      }
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
}
