import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { createFsStorage } from "@quire/storage-fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { createTestSite, expectError, stoppingBody } from "./helpers.js";
import { formBody, pngFile } from "./uploads-fixtures.js";

/** Errors a person can act on (docs/errors.md). */
describe("validation messages", () => {
  it("names a nested field by its full path", async () => {
    const s = await createTestSite();
    const res = await s.call("POST", "/api/posts", {
      format: "note",
      bodyMarkdown: "x",
      attachments: [{ type: "text", content: "ok" }, { type: "text" }],
    });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.details.fieldErrors).toEqual({ "attachments[1].content": ["Required"] });
    expect(res.body.error).toContain("attachments[1].content: Required");
    expect((await s.call("GET", "/api/posts")).body.posts).toEqual([]);
  });

  it('says "Required" for a missing required field', async () => {
    const s = await createTestSite();
    const res = await s.call("POST", "/api/collections", { title: "No slug" });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.details.fieldErrors).toEqual({ slug: ["Required"] });
  });

  it("says what a query value should have been", async () => {
    const s = await createTestSite();
    const limit = await s.call("GET", "/api/posts?limit=abc");
    expectError(limit, 400, "VALIDATION_ERROR");
    expect(limit.body.details.fieldErrors.limit).toEqual(['Expected a number, received the text "abc"']);
    const fold = await s.call("GET", "/api/threads?fold=maybe");
    expectError(fold, 400, "VALIDATION_ERROR");
    expect(fold.body.details.fieldErrors.fold).toEqual([
      'Expected a boolean (true or false), received the text "maybe"',
    ]);
  });

  it("says what a JSON value should have been", async () => {
    const s = await createTestSite();
    const res = await s.call("POST", "/api/posts", { format: "note", title: 42 });
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.details.fieldErrors.title?.[0]).toMatch(/received number 42/);
  });

  it("gives every validation error formErrors and fieldErrors, one about no field included", async () => {
    // A body that is not JSON, or not an object, names no field: it answered no details at all.
    const s = await createTestSite();
    for (const body of ["{not json", "[1, 2]"]) {
      const res = await s.call("POST", "/api/posts", body, { "content-type": "application/json" });
      expectError(res, 400, "VALIDATION_ERROR", body);
      expect(res.body.details).toEqual({ formErrors: [res.body.error], fieldErrors: {} });
    }
    // A field's error keeps its place, with no form error.
    const field = await s.call("POST", "/api/posts", { format: "note", title: 42 });
    expect(field.body.details.formErrors).toEqual([]);
  });
});

describe("method, auth, media type and unknown paths", () => {
  it("answers a method the path does not have with 405 and Allow", async () => {
    // With the internal surface open: without its token it answers 404 to every method.
    const s = await createTestSite({ internalAdminToken: "admin-secret" });
    const res = await s.call("PATCH", "/api/posts");
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
    const item = await s.call("POST", "/api/posts/pst_01j0000000e008000000000001");
    expectError(item, 405, "METHOD_NOT_ALLOWED");
    expect(item.headers.get("allow")?.split(", ").sort()).toEqual([
      "DELETE",
      "GET",
      "HEAD",
      "OPTIONS",
      "PUT",
    ]);
    const create = await s.handler(
      new Request("http://localhost/api/internal/tokens/purge", { method: "HEAD" }),
    );
    expect(create.status).toBe(405);
    expect(create.headers.get("allow")?.split(", ")).not.toContain("HEAD");
    const spec = await s.call("DELETE", "/api/openapi.json");
    expectError(spec, 405, "METHOD_NOT_ALLOWED");
    expect(spec.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("answers HEAD wherever GET answers: the same status and headers, no content", async () => {
    const s = await createTestSite();
    const created = await s.call("POST", "/api/posts", {
      format: "note",
      title: "Head",
      bodyMarkdown: "Body",
    });
    expect(created.status).toBe(201);
    const head = (path: string, headers: Record<string, string> = {}) =>
      s.handler(new Request(`http://localhost${path}`, { method: "HEAD", headers }));
    for (const [path, headers] of [
      ["/api/public/threads?include=fold", {}],
      [`/api/posts/${created.body.id}`, { authorization: "Bearer dev-token" }],
      ["/feeds/json", {}],
      ["/api/openapi.json", {}],
    ] as const) {
      const get = await s.handler(new Request(`http://localhost${path}`, { headers }));
      const response = await head(path, headers);
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).toBe("");
      expect(response.headers.get("content-type"), path).toBe(get.headers.get("content-type"));
      expect(response.headers.get("etag"), path).toBe(get.headers.get("etag"));
      const bytes = (await get.arrayBuffer()).byteLength;
      expect(bytes, path).toBeGreaterThan(0);
      // A public answer's bytes are known: HEAD tells how many a GET sends.
      if (path.startsWith("/api/public") || path.startsWith("/feeds"))
        expect(response.headers.get("content-length"), path).toBe(String(bytes));
    }
    // The GET route's rules hold: an owner read needs a token, an unknown ID is a 404.
    const anonymous = await head(`/api/posts/${created.body.id}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toBe("");
    const missingPath = "/api/posts/pst_01h2xcejqtf2nbrexx3vqjhp41";
    expect((await s.call("GET", missingPath)).status).toBe(404);
    expect((await head(missingPath, { authorization: "Bearer dev-token" })).status).toBe(404);
    // A matching ETag still gets 304.
    const etag = (await head("/api/public/threads")).headers.get("etag") ?? "";
    expect(etag).not.toBe("");
    expect((await head("/api/public/threads", { "if-none-match": etag })).status).toBe(304);
  });

  it("sends WWW-Authenticate: Bearer with every 401", async () => {
    const s = await createTestSite({ internalAdminToken: "admin" });
    for (const path of ["/api/posts", "/api/internal/tokens"]) {
      const res = await s.call("GET", path, undefined, { authorization: "" });
      expectError(res, 401, "UNAUTHORIZED", path);
      expect(res.headers.get("www-authenticate"), path).toBe('Bearer realm="quire"');
    }
    const wrong = await s.call("GET", "/api/posts", undefined, { authorization: "Bearer nope" });
    expectError(wrong, 401, "UNAUTHORIZED");
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    expect((await s.call("GET", "/api/posts")).headers.get("www-authenticate")).toBeNull();
  });

  it("answers unknown paths, in and outside /api and outside the prefix, in the JSON error shape", async () => {
    const s = await createTestSite();
    for (const path of ["/", "/nothing", "/api/nothing", "/static/app.js"]) {
      const res = await s.call("GET", path);
      expectError(res, 404, "NOT_FOUND", path);
      expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
    }
    const prefixed = await createTestSite({ engineConfig: { settings: { sitePathPrefix: "/blog" } } });
    const outside = await prefixed.call("GET", "/elsewhere");
    expectError(outside, 404, "NOT_FOUND");
  });

  it("refuses a JSON route's body sent as a form or bytes with 415, storing nothing", async () => {
    const s = await createTestSite();
    const body = JSON.stringify({ format: "note", bodyMarkdown: "x" });
    for (const type of [
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/octet-stream",
    ]) {
      const res = await s.send("POST", "/api/posts", body, { "content-type": type });
      expectError(res, 415, "UNSUPPORTED_MEDIA_TYPE", type);
      expect(res.body.error, type).toContain("application/json");
    }
    expect((await s.call("GET", "/api/posts")).body.posts).toEqual([]);
    // JSON types, text/plain (fetch's default for a string) and no type are read as JSON.
    for (const type of [
      "application/json; charset=utf-8",
      "application/merge-patch+json",
      "text/plain;charset=UTF-8",
    ]) {
      expect((await s.send("POST", "/api/posts", body, { "content-type": type })).status, type).toBe(201);
    }
    expect((await s.send("POST", "/api/posts", new TextEncoder().encode(body))).status).toBe(201);
  });
});

describe("unknown fields", () => {
  it("names ignored fields in Quire-Unknown-Fields when the request asks for it", async () => {
    const s = await createTestSite();
    const res = await s.call(
      "POST",
      "/api/posts",
      {
        format: "note",
        title: "Typo",
        bodyMarkdwn: "lost",
        attachments: [{ type: "text", content: "a", colour: "red" }],
      },
      { prefer: "warn-unknown-fields" },
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("quire-unknown-fields")).toBe("bodyMarkdwn, attachments[0].colour");
    expect(res.headers.get("preference-applied")).toBe("warn-unknown-fields");
    // Still ignored, as the spec requires: the post has no body.
    expect(res.body.bodyText).toBeNull();
    const query = await s.call("GET", "/api/posts?limt=5&format=note", undefined, {
      prefer: "warn-unknown-fields",
    });
    expect(query.status).toBe(200);
    expect(query.headers.get("quire-unknown-fields")).toBe("limt");
  });

  it("writes any field name into the header as printable ASCII, escaping the rest as UTF-8 (it answered 500 after the write)", async () => {
    const s = await createTestSite();
    // A header holds bytes: a name above U+00FF, with a line break or a NUL could not be set, and
    // the create had already happened when the answer failed.
    const res = await s.call(
      "POST",
      "/api/posts",
      JSON.parse(
        '{"format": "note", "title": "Odd names", "日本": 1, "a\\nb": 2, "x, y": 3, "caf\u00e9": 4, "100%": 5, "lone\\ud800": 6}',
      ),
      { prefer: "warn-unknown-fields" },
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("quire-unknown-fields")).toBe(
      "%E6%97%A5%E6%9C%AC, a%0Ab, x%2C%20y, caf%C3%A9, 100%25, lone%EF%BF%BD",
    );
    // Made once, with its own fields only.
    const posts = (await s.call("GET", "/api/posts")).body.posts as { id: string; title: string }[];
    expect(posts.map((post) => [post.id, post.title])).toEqual([[res.body.id, "Odd names"]]);
  });

  it("sends no header unless asked, and on every request with the handler option", async () => {
    const quiet = await createTestSite();
    const plain = await quiet.call("POST", "/api/posts", { format: "note", bodyMarkdwn: "x" });
    expect(plain.status).toBe(201);
    expect(plain.headers.get("quire-unknown-fields")).toBeNull();
    const warned = await createTestSite({ warnUnknownFields: true });
    const res = await warned.call("POST", "/api/posts", { format: "note", bodyMarkdwn: "x" });
    expect(res.headers.get("quire-unknown-fields")).toBe("bodyMarkdwn");
    expect(res.headers.get("access-control-expose-headers")).toBe("quire-unknown-fields");
    const clean = await warned.call("POST", "/api/posts", { format: "note", bodyMarkdown: "x" });
    expect(clean.headers.get("quire-unknown-fields")).toBeNull();
  });
});

/**
 * A site on a local store with a relay upload session of 100 bytes open, a one-shot form holding a
 * small PNG, and the messages its handler logs as unexpected errors.
 */
async function siteWithUpload() {
  const root = await mkdtemp(path.join(tmpdir(), "quire-bodies-"));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  const logged: string[] = [];
  const s = await createTestSite({
    logger: { info() {}, warn() {}, error: (message: string) => void logged.push(message) },
    engineConfig: { storage: createFsStorage({ root, publicBaseUrl: "/media" }) },
  });
  const session = await s.engine.uploads.init({
    filename: "a.bin",
    contentType: "application/octet-stream",
    size: 100,
  });
  const form = formBody([{ name: "file", filename: "a.png", type: "image/png", data: pngFile(4, 4) }]);
  return { s, session, form, logged };
}

describe("a body that stops before its end", () => {
  it("answers 400 VALIDATION_ERROR on every kind of body, logs nothing and stores nothing", async () => {
    const { s, session, form, logged } = await siteWithUpload();
    const declared = (type: string, length: number) => ({
      "content-type": type,
      "content-length": String(length),
    });
    const cases = [
      [
        "a JSON body",
        await s.send(
          "POST",
          "/api/posts",
          stoppingBody('{"format":"note","ti'),
          declared("application/json", 100),
        ),
      ],
      [
        "a file's bytes",
        await s.send(
          "PUT",
          `/api/uploads/${session.id}/body`,
          stoppingBody(new Uint8Array(50)),
          declared("application/octet-stream", 100),
        ),
      ],
      [
        "a form",
        await s.send(
          "POST",
          "/api/upload",
          stoppingBody(form.body.subarray(0, 200)),
          declared(form.contentType, form.body.byteLength),
        ),
      ],
    ] as const;
    // A validation error about the request as a whole: its message is the one form error.
    const wholeRequest = (error: string) => ({
      error,
      code: "VALIDATION_ERROR",
      details: { formErrors: [error], fieldErrors: {} },
    });
    expect(cases.map(([what, res]) => [what, res.status, res.body])).toEqual([
      ["a JSON body", 400, wholeRequest("The request body stopped before all of it arrived")],
      ["a file's bytes", 400, wholeRequest("The request body stopped before all of it arrived")],
      ["a form", 400, wholeRequest("The request body ended before the form did")],
    ]);
    expect(logged).toEqual([]);
    expect((await s.engine.posts.list({})).posts).toEqual([]);
    expect((await s.engine.media.list({})).media).toEqual([]);
    // The upload session is still open: its file can be sent again.
    const again = await s.send(
      "PUT",
      `/api/uploads/${session.id}/body`,
      new Uint8Array(100),
      declared("application/octet-stream", 100),
    );
    expect(again.status).toBe(204);
  });
});

describe("a compressed request body", () => {
  it("answers 415 with Accept-Encoding: identity on every kind of body, and stores nothing", async () => {
    const { s, session, form, logged } = await siteWithUpload();
    const post = JSON.stringify({ format: "note", title: "Squeezed" });
    const coded = (type: string, coding: string) => ({ "content-type": type, "content-encoding": coding });
    const answers = [
      await s.send("POST", "/api/posts", gzipSync(post), coded("application/json", "gzip")),
      // A coding the client says it applied, even on bytes that happen to be plain JSON.
      await s.send("POST", "/api/posts", post, coded("application/json", "identity, br")),
      await s.send(
        "PUT",
        `/api/uploads/${session.id}/body`,
        gzipSync(new Uint8Array(100)),
        coded("application/octet-stream", "GZIP"),
      ),
      await s.send("POST", "/api/upload", gzipSync(form.body), coded(form.contentType, "gzip")),
      await s.send(
        "PUT",
        "/api/settings",
        gzipSync(JSON.stringify({ SITE_NAME: "x" })),
        coded("application/json", "deflate"),
      ),
    ];
    expect(
      answers.map((answer) => [answer.status, answer.headers.get("accept-encoding"), answer.body]),
    ).toEqual(
      ["gzip", "br", "gzip", "gzip", "deflate"].map((coding) => [
        415,
        "identity",
        {
          error: `This server reads request bodies uncompressed; send the body without Content-Encoding (got ${coding})`,
          code: "UNSUPPORTED_MEDIA_TYPE",
        },
      ]),
    );
    expect(logged).toEqual([]);
    expect((await s.engine.posts.list({})).posts).toEqual([]);
    expect((await s.engine.media.list({})).media).toEqual([]);
    expect((await s.engine.settings.get({})).settings.SITE_NAME).not.toBe("x");
    // `identity` (no coding at all) is read as usual, and a route that reads no body ignores the header.
    const plain = await s.send("POST", "/api/posts", post, coded("application/json", "identity"));
    expect(plain.status).toBe(201);
    const read = await s.send("GET", `/api/posts/${plain.body.id}`, undefined, {
      "content-encoding": "gzip",
    });
    expect(read.status).toBe(200);
    const sent = await s.send("PUT", `/api/uploads/${session.id}/body`, new Uint8Array(100), {
      "content-type": "application/octet-stream",
    });
    expect(sent.status).toBe(204);
  });
});
