import { describe, expect, it } from "vitest";
import { routes } from "../src/routes.js";
import { openFuzzSite } from "./fuzz/fuzz-site.js";
import { type FuzzReport, runFuzz } from "./fuzz/run-fuzz.js";
import { createTestSite, expectError } from "./helpers.js";
import { createFsMediaSite, formBody, pngFile } from "./uploads-fixtures.js";

/**
 * Bad-input fuzzing of every route (docs/fuzzing.md): requests generated from each operation's
 * schema and from mutations of valid ones, with wrong methods, unknown paths and odd bytes. A short
 * run here, on whichever database the suite runs on; `pnpm fuzz` is the long run.
 */
const requests = Number(process.env.QUIRE_FUZZ_REQUESTS ?? 1_000);
const seed = Number(process.env.QUIRE_FUZZ_SEED ?? 20_240_601);

describe("fuzzing every route", () => {
  it(`answers ${requests} generated requests without a 5xx, off-shape error or changed store`, async () => {
    const site = await openFuzzSite();
    let report: FuzzReport;
    try {
      // The store comparison sees every table of the site's own database.
      const tables = Object.keys((await site.snapshot()).rows);
      expect(tables).toEqual(
        expect.arrayContaining(["posts", "media", "api_tokens", "upload_sessions", "upload_parts"]),
      );
      report = await runFuzz(site, { requests, seed, maxProblems: 10 });
    } finally {
      await site.close();
    }
    const problems = report.problems.map(
      (problem) =>
        `${problem.kind}: ${problem.detail}\n  ${problem.request.label}\n  ${problem.request.method} ${problem.request.url.slice(0, 300)}` +
        `${problem.request.body ? `\n  body ${new TextDecoder().decode(problem.request.body.slice(0, 300))}` : ""}` +
        `${problem.status ? `\n  → ${problem.status} ${problem.body}` : ""}`,
    );
    expect(problems).toEqual([]);
    expect(report.serverErrors).toBe(0);
    // Every route was fuzzed, and the run reached past validation: successes and each kind of refusal occurred.
    expect(Object.keys(report.byOperation)).toEqual(
      expect.arrayContaining(routes.map((route) => route.operation)),
    );
    expect(Object.keys(report.byStatus)).toEqual(expect.arrayContaining(["200", "201", "400", "401", "404"]));
  }, 120_000);
});

/** Each bug the fuzzer found, pinned by a request that failed before its fix. */
describe("found by fuzzing", () => {
  it("reads query and form fields named like Object.prototype members as unknown fields (was a 500)", async () => {
    const s = await createTestSite();
    const post = await s.engine.posts.create({ format: "note", title: "Hello" });
    for (const query of [
      "constructor=1",
      "toString=x",
      "__proto__=1",
      "hasOwnProperty=",
      "include=constructor,fold",
    ]) {
      expect((await s.call("GET", `/api/threads?${query}`)).status, query).toBe(200);
      expect((await s.call("GET", `/api/public/posts/${post.slug}?${query}`)).status, query).toBe(200);
      expect((await s.call("GET", `/api/posts/${post.id}?${query}`)).status, query).toBe(200);
    }
  });

  it("names body fields called like Object.prototype members in a validation error (settings answered 500)", async () => {
    // A free-form object (the settings) takes any key: with a value of the wrong type, `constructor`
    // or `toString` made the error's bookkeeping find `Object.prototype`'s member and fail.
    const site = await createTestSite();
    const before = (await site.call("GET", "/api/settings")).body;
    const bodies = [
      ['{"constructor":true}', "constructor"],
      ['{"toString":1e21,"SITE_LANGUAGE":"fr"}', "toString"],
      ['{"__proto__":{"admin":true},"constructor":{"prototype":{}}}', "constructor"],
    ] as const;
    for (const [body, field] of bodies) {
      const answer = await site.call("PUT", "/api/settings", body);
      expectError(answer, 400, "VALIDATION_ERROR", body);
      expect(answer.body.details.fieldErrors, body).toEqual({
        [field]: [expect.stringMatching(/^Expected a string, received /)],
      });
      // The import writes only language keys: any other key is listed, whatever its value.
      const imported = await site.call("PUT", "/api/settings/import", body);
      expect(imported.status, body).toBe(200);
      expect(imported.body.rejectedKeys, body).toContain(field);
    }
    expect((await site.call("GET", "/api/settings")).body).toEqual(before);
    // With text values they are unknown keys, as any other.
    const named = await site.call(
      "PUT",
      "/api/settings",
      '{"constructor":"x","toString":"y","SITE_NAME":"Named"}',
    );
    expect(named.status).toBe(200);
    expect(named.body.rejectedKeys).toEqual(["constructor", "toString"]);
    expect(named.body.settings.SITE_NAME).toBe("Named");
  });

  it("resolves a path that decodes to a NUL as nobody's, on both databases (PostgreSQL answered 500)", async () => {
    // `path=%2500` is the path `%00`, which resolve decodes to a NUL: the raw input passes the NUL
    // check, and PostgreSQL refused to compare text holding one.
    const s = await createTestSite();
    const post = await s.engine.posts.create({ format: "note", title: "Hello" });
    for (const path of ["%2500", "%2Fhello%2500", `%2F${post.slug}%2500`]) {
      const answer = await s.call("GET", `/api/public/resolve?path=${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.body, path).toMatchObject({ kind: "not_found" });
    }
    const translation = await s.call("GET", `/api/posts/${post.id}/translations/resolve?url=%2500`);
    expect(translation.status, JSON.stringify(translation.body)).toBe(200);
    expect(translation.body.resolution).toMatchObject({ kind: "not_found", candidate: null });
    expect((await s.call("GET", `/api/public/resolve?path=%2F${post.slug}`)).body).toMatchObject({
      kind: "post",
    });
  });

  it("refuses media details past a 32-bit integer on both databases (PostgreSQL answered 500)", async () => {
    const site = await createFsMediaSite();
    const file = pngFile(4, 4, 600);
    // A width or height is kept only with the other (else both are measured from the image).
    const tooLarge = {
      width: { width: 2 ** 31, height: 1 },
      height: { width: 1, height: 2 ** 31 },
      chars: { chars: 2 ** 31 },
    };
    for (const [field, details] of Object.entries(tooLarge)) {
      const form = formBody([
        ...Object.entries(details).map(([name, value]) => ({ name, value: String(value) })),
        { name: "file", filename: "a.png", type: "image/png", data: file },
      ]);
      const res = await site.send("POST", "/api/upload", form.body, { "content-type": form.contentType });
      expectError(res, 400, "VALIDATION_ERROR", field);
      expect(res.body.details.fieldErrors[field], field).toBeDefined();
    }
    const init = await site.call("POST", "/api/uploads/init", {
      filename: "a.png",
      contentType: "image/png",
      size: file.length,
    });
    const id = init.body.id as string;
    expect((await site.send("PUT", `/api/uploads/${id}/body`, file)).status).toBe(204);
    expectError(
      await site.call("POST", `/api/uploads/${id}/complete`, { width: 2 ** 31, height: 1 }),
      400,
      "VALIDATION_ERROR",
    );
    // Refused before the session was claimed: it completes with readable details.
    const done = await site.call("POST", `/api/uploads/${id}/complete`, {
      width: 2 ** 31 - 1,
      height: 1,
      chars: 2 ** 31 - 1,
    });
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ width: 2 ** 31 - 1, height: 1 });
    expect(await site.storedKeys()).toHaveLength(1);
  });

  it("refuses text with lone surrogates, which SQLite and PostgreSQL stored differently (201 before)", async () => {
    const s = await createTestSite();
    // JSON escapes carry what UTF-8 cannot: half of a surrogate pair.
    for (const body of [
      String.raw`{"format":"note","title":"a\ud800b"}`,
      String.raw`{"format":"note","bodyMarkdown":"x","summary":"\udc00"}`,
      String.raw`{"format":"note","attachments":[{"type":"text","content":"\ud83d"}]}`,
    ]) {
      const res = await s.call("POST", "/api/posts", body);
      expectError(res, 400, "VALIDATION_ERROR", body);
    }
    expect((await s.call("GET", "/api/posts")).body.posts).toEqual([]);
    // A whole pair is a character like any other, and round-trips on both databases.
    const emoji = await s.call("POST", "/api/posts", String.raw`{"format":"note","title":"a\ud83d\ude00b"}`);
    expect(emoji.status).toBe(201);
    expect((await s.call("GET", `/api/posts/${emoji.body.id}`)).body.title).toBe("a😀b");
  });
});
