import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

let site: TestSite;
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now: 1_700_000_000 } });
});

describe("POST /api/posts", () => {
  it("answers 201 with the full post", async () => {
    const res = await site.call("POST", "/api/posts", {
      format: "note",
      title: "Hi",
      bodyMarkdown: "Hello  \nthere",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      format: "note",
      status: "published",
      visibility: "public",
      slug: "hi",
      title: "Hi",
      threadPostCount: 1,
      attachments: [],
    });
    // Only GET /api/posts/:id carries these (spec § Post).
    expect(res.body).not.toHaveProperty("collectionIds");
    expect(res.body).not.toHaveProperty("threadPosition");
    expect(res.body.bodyHtml).toBe("<p>Hello<br>\nthere</p>");
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  it("answers 400 with formErrors and fieldErrors for invalid input, storing nothing", async () => {
    const cases: unknown[] = [
      { format: "poem" },
      {},
      { format: "note", title: 5 },
      { format: "link", title: "x" },
      { format: "note", body: "{}", bodyMarkdown: "x" },
      { format: "note", slug: "a", path: "a" },
      { format: "note", body: JSON.stringify({ type: "paragraph" }) },
      { format: "note", slug: "UPPER" },
      { format: "note", slug: "api" },
      { format: "note", publishedAt: "yesterday" },
      { format: "note", replyToId: "not-an-id" },
    ];
    for (const body of cases) {
      const res = await site.call("POST", "/api/posts", body);
      expectError(res, 400, "VALIDATION_ERROR", JSON.stringify(body));
    }
    const typed = await site.call("POST", "/api/posts", { format: "note", title: 5 });
    expect(Array.isArray(typed.body.details.formErrors)).toBe(true);
    expect(typed.body.details.fieldErrors.title).toHaveLength(1);
    const list = await site.call("GET", "/api/posts");
    expect(list.body.posts).toEqual([]);
  });

  it("answers 400 for a body that is not a JSON object", async () => {
    for (const body of ["{nope", "[1,2]", '"text"', "null"]) {
      const res = await site.call("POST", "/api/posts", body, { "content-type": "application/json" });
      expectError(res, 400, "VALIDATION_ERROR");
    }
  });

  it("answers 409 for a duplicate slug", async () => {
    await site.call("POST", "/api/posts", { format: "note", slug: "dup" });
    const res = await site.call("POST", "/api/posts", { format: "note", slug: "dup" });
    expectError(res, 409, "CONFLICT");
  });

  it("stores a path as canonical slug plus alias", async () => {
    const res = await site.call("POST", "/api/posts", {
      format: "note",
      title: "x",
      path: "2024/01/hello-world",
    });
    expect(res.body.slug).toBe("2024-01-hello-world");
    const reading = await site.call("GET", "/api/public/posts/2024-01-hello-world", undefined, {
      authorization: "",
    });
    expect(reading.body.permalink).toBe("/2024/01/hello-world");
  });
});

describe("GET/PUT/DELETE /api/posts/:id", () => {
  it("reads, updates partially and deletes", async () => {
    const created = await site.call("POST", "/api/posts", {
      format: "quote",
      quoteText: "Q",
      sourceName: "S",
      attachments: [{ type: "text", contentFormat: "markdown", content: "Notes", summary: "sum" }],
    });
    const id = created.body.id;
    const read = await site.call("GET", `/api/posts/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty("title");
    expect(read.body).not.toHaveProperty("url");
    expect(read.body.attachments[0]).toMatchObject({
      type: "text",
      contentFormat: "markdown",
      summary: "sum",
      chars: 5,
    });
    const content = await site.call("GET", read.body.attachments[0].contentUrl);
    expect(content.body).toMatchObject({ type: "text", content: "Notes", contentFormat: "markdown" });

    site.clock.advance(30);
    const updated = await site.call("PUT", `/api/posts/${id}`, {
      sourceName: null,
      rating: 4,
      id: "pst_ignored",
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, sourceName: null, rating: 4, updatedAt: 1_700_000_030 });
    const wrong = await site.call("PUT", `/api/posts/${id}`, { title: "not for quotes" });
    expect(wrong.status).toBe(400);

    const markdown = await site.call("GET", `/api/posts/${id}?content=markdown`);
    expect(markdown.body).toHaveProperty("bodyMarkdown");
    expect(markdown.body).not.toHaveProperty("bodyHtml");

    expect((await site.call("DELETE", `/api/posts/${id}`)).body).toEqual({ success: true });
    const gone = await site.call("GET", `/api/posts/${id}`);
    expectError(gone, 404, "NOT_FOUND");
  });

  it("answers 400 for malformed or wrong-prefix IDs", async () => {
    for (const id of [
      "123",
      "pst_short",
      "med_01h2xcejqtf2nbrexx3vqjhp41",
      "PST_01H2XCEJQTF2NBREXX3VQJHP41",
    ]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await site.call(method, `/api/posts/${id}`, method === "PUT" ? {} : undefined);
        expectError(res, 400, "VALIDATION_ERROR", `${method} ${id}`);
      }
    }
    expect((await site.call("GET", "/api/posts/pst_01h2xcejqtf2nbrexx3vqjhp41")).status).toBe(404);
    expect((await site.call("GET", "/api/attachments/pst_01h2xcejqtf2nbrexx3vqjhp41/content")).status).toBe(
      400,
    );
  });
});

describe("GET /api/posts", () => {
  it("pages with cursors, clamps limit, ignores unknown parameters and refuses bad values", async () => {
    for (let i = 0; i < 5; i++)
      await site.call("POST", "/api/posts", { format: "note", title: `n${i}`, publishedAt: 100 + i });
    const first = await site.call("GET", "/api/posts?limit=2&unknown=1");
    expect(first.body.posts.map((p: { title: string }) => p.title)).toEqual(["n4", "n3"]);
    const second = await site.call("GET", `/api/posts?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.posts.map((p: { title: string }) => p.title)).toEqual(["n2", "n1"]);
    const third = await site.call("GET", `/api/posts?limit=2&cursor=${second.body.nextCursor}`);
    expect(third.body.posts.map((p: { title: string }) => p.title)).toEqual(["n0"]);
    expect(third.body.nextCursor).toBeNull();
    expect((await site.call("GET", "/api/posts?limit=500")).body.posts).toHaveLength(5);
    expect((await site.call("GET", "/api/posts?limit=-3")).body.posts).toHaveLength(1);
    // Whole numbers past JavaScript's safe integers are clamped too (they were 400).
    expect((await site.call("GET", "/api/posts?limit=100000000000000000000")).body.posts).toHaveLength(5);
    expect((await site.call("GET", "/api/posts?limit=-9007199254740993")).body.posts).toHaveLength(1);
    for (const query of [
      "limit=ten",
      "status=all",
      "format=poem",
      "cursor=%21%21",
      `cursor=${first.body.posts[0].id}`,
      "content=html",
    ]) {
      const res = await site.call("GET", `/api/posts?${query}`);
      expectError(res, 400, "VALIDATION_ERROR", query);
    }
  });
});

describe("GET /api/posts/slug", () => {
  it("suggests and checks", async () => {
    await site.call("POST", "/api/posts", { format: "note", title: "Taken" });
    expect((await site.call("GET", "/api/posts/slug?mode=suggest&title=Taken")).body).toEqual({
      slug: "taken-2",
    });
    expect((await site.call("GET", "/api/posts/slug?mode=check&slug=taken")).body).toEqual({
      slug: "taken",
      available: false,
    });
    expect((await site.call("GET", "/api/posts/slug?mode=check&slug=admin")).status).toBe(400);
    expect((await site.call("GET", "/api/posts/slug?mode=check&slug=Bad_Slug")).status).toBe(400);
    expect((await site.call("GET", "/api/posts/slug")).status).toBe(400);
  });
});

describe("GET /api/public/posts/:slug", () => {
  it("serves published posts without auth and hides drafts and private ones", async () => {
    await site.call("POST", "/api/posts", { format: "note", title: "Open", slug: "open" });
    await site.call("POST", "/api/posts", { format: "note", title: "Draft", slug: "draft", status: "draft" });
    await site.call("POST", "/api/posts", {
      format: "note",
      title: "Secret",
      slug: "secret",
      visibility: "private",
    });
    const open = await site.call("GET", "/api/public/posts/open", undefined, { authorization: "" });
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({
      slug: "open",
      status: "published",
      permalink: "/open",
      collections: [],
    });
    expect(open.body).not.toHaveProperty("body");
    for (const slug of ["draft", "secret", "nothing"]) {
      const res = await site.call("GET", `/api/public/posts/${slug}`, undefined, { authorization: "" });
      expectError(res, 404, "NOT_FOUND");
    }
  });
});

describe("request size", () => {
  it("refuses a JSON body over 10 MiB with 400, storing nothing", async () => {
    const huge = JSON.stringify({ format: "note", bodyMarkdown: "x".repeat(11 * 1024 * 1024) });
    const res = await site.call("POST", "/api/posts", huge);
    expectError(res, 400, "VALIDATION_ERROR");
    const streamed = await site.handler(
      new Request("http://localhost/api/posts", {
        method: "POST",
        headers: { authorization: "Bearer dev-token" },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < 12; i++) controller.enqueue(new Uint8Array(1024 * 1024).fill(32));
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit),
    );
    expect(streamed.status).toBe(400);
    expect((await site.call("GET", "/api/posts")).body.posts).toEqual([]);
  });
});
