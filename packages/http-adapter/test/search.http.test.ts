import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

let site: TestSite;
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now: 1_700_000_000 } });
});

const search = (query: string) => site.call("GET", `/api/search?${query}`);

describe("GET /api/search", () => {
  it("answers { query, results, count } with private posts and replies, never drafts", async () => {
    const root = await site.call("POST", "/api/posts", {
      format: "note",
      title: "Otter",
      visibility: "private",
      bodyMarkdown: "An otter `<swims>` & plays",
    });
    const reply = await site.call("POST", "/api/posts", {
      format: "note",
      replyToId: root.body.id,
      bodyMarkdown: "the otter again",
    });
    await site.call("POST", "/api/posts", { format: "note", status: "draft", bodyMarkdown: "draft otter" });
    const res = await search("q=otter");
    expect(res.status).toBe(200);
    expect(res.body.query).toBe("otter");
    expect(res.body.count).toBe(2);
    expect(new Set(res.body.results.map((r: { id: string }) => r.id))).toEqual(
      new Set([root.body.id, reply.body.id]),
    );
    const first = res.body.results.find((r: { id: string }) => r.id === root.body.id);
    expect(first).toMatchObject({
      format: "note",
      title: "Otter",
      visibility: "private",
      permalink: `/${root.body.slug}`,
      publishedAt: 1_700_000_000,
    });
    expect(first.snippet).toBe("An <mark>otter</mark> &lt;swims&gt; &amp; plays");
  });

  it("treats FTS operator characters and quotes as text and never answers 500", async () => {
    await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: 'say "hi" NEAR x*y -z a:b' });
    const queries = [
      '"',
      '""',
      '"hi"',
      "NEAR",
      "NEAR(a b)",
      "*",
      "x*y",
      "-",
      "-z",
      ":",
      "a:b",
      "(",
      ")",
      "AND",
      "OR",
      "NOT",
      "^",
      "%",
      "_",
      "\\",
      "'",
      "{a}",
    ];
    for (const q of queries) {
      const res = await search(`q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
    }
    expect((await search(`q=${encodeURIComponent('"hi"')}`)).body.count).toBe(1);
    expect((await search(`q=${encodeURIComponent("x*y")}`)).body.count).toBe(1);
    expect((await search(`q=${encodeURIComponent("xy")}`)).body.count).toBe(0);
    expect((await search(`q=${encodeURIComponent("-z")}`)).body.count).toBe(1);
  });

  it("answers 400 VALIDATION_ERROR naming q for a missing, blank or over-long q", async () => {
    for (const query of ["", "q=", "q=%20%20", `q=${"a".repeat(201)}`, "limit=5"]) {
      const res = await search(query);
      expectError(res, 400, "VALIDATION_ERROR", query);
      expect(res.body.details.fieldErrors, query).toHaveProperty("q");
    }
    expect((await search(`q=${"a".repeat(200)}`)).status).toBe(200);
  });

  it("clamps limit to 1..50 and answers 400 for a limit that is not a number", async () => {
    for (let i = 0; i < 52; i++)
      await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: `bison ${i}` });
    expect((await search("q=bison")).body.count).toBe(20);
    expect((await search("q=bison&limit=0")).body.count).toBe(1);
    expect((await search("q=bison&limit=500")).body.count).toBe(50);
    expect((await search("q=bison&limit=3")).body.results).toHaveLength(3);
    expectError(await search("q=bison&limit=many"), 400, "VALIDATION_ERROR");
  });

  it("needs a session or token", async () => {
    const res = await site.call("GET", "/api/search?q=otter", undefined, { authorization: "" });
    expectError(res, 401, "UNAUTHORIZED");
  });
});
