import { describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestResponse, type TestSite } from "./helpers.js";

/** GET /api/public/resolve and engine.resolve. @see docs/custom-urls.md § Resolving an address */

const anonymous = { authorization: "" };

async function ok(res: Promise<TestResponse>, status = 201): Promise<TestResponse> {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  return answer;
}

async function post(site: TestSite, body: object): Promise<{ id: string; slug: string }> {
  return (await ok(site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "Text", ...body }))).body;
}

/** Resolves as an anonymous visitor (no token); the answer is always 200. */
async function resolve(site: TestSite, path: string, base = ""): Promise<TestResponse["body"]> {
  const res = await site.call(
    "GET",
    `${base}/api/public/resolve?path=${encodeURIComponent(path)}`,
    undefined,
    anonymous,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe("GET /api/public/resolve", () => {
  it("finds a post at its slug, with the reading view and its canonical path", async () => {
    const site = await createTestSite();
    const p = await post(site, { slug: "hello", title: "Hello" });
    const answer = await resolve(site, "/hello");
    expect(answer).toMatchObject({ kind: "post", path: "/hello", canonicalPath: "/hello" });
    expect(answer.post).toMatchObject({ id: p.id, slug: "hello", permalink: "/hello", status: "published" });
    expect(answer.post.body).toBeUndefined();
    expect(await site.engine.resolve("/hello")).toEqual(answer);
  });

  it("a post lives at its oldest custom URL; its slug and newer aliases redirect there with 301", async () => {
    const site = await createTestSite();
    const p = await post(site, { path: "2024/01/hello-world" });
    await ok(site.call("POST", "/api/custom-urls", { path: "newer", targetType: "post", targetId: p.id }));
    expect(await resolve(site, "/2024/01/hello-world")).toMatchObject({
      kind: "post",
      canonicalPath: "/2024/01/hello-world",
      post: { id: p.id },
    });
    for (const other of ["/2024-01-hello-world", "/newer"]) {
      expect(await resolve(site, other)).toEqual({
        kind: "redirect",
        path: other,
        location: "/2024/01/hello-world",
        status: 301,
        reason: "canonical",
      });
    }
  });

  it("never reveals a draft, a private post or a reply of a draft, at a slug or an alias", async () => {
    const site = await createTestSite();
    const draft = await post(site, { slug: "draft-post", status: "draft" });
    const secret = await post(site, { slug: "secret-post", visibility: "private" });
    const reply = await post(site, { slug: "draft-reply", replyToId: draft.id });
    for (const target of [draft, secret, reply]) {
      await ok(
        site.call("POST", "/api/custom-urls", {
          path: `alias-of/${target.slug}`,
          targetType: "post",
          targetId: target.id,
        }),
      );
      for (const path of [`/${target.slug}`, `/alias-of/${target.slug}`]) {
        expect(await resolve(site, path), path).toEqual({ kind: "not_found", path });
      }
    }
    // The same post once published and public resolves (the rule is visibility, not the alias).
    await ok(site.call("PUT", `/api/posts/${secret.id}`, { visibility: "public" }), 200);
    expect((await resolve(site, "/secret-post")).kind).toBe("redirect");
    expect((await resolve(site, "/alias-of/secret-post")).kind).toBe("post");
  });

  it("answers stored redirects with their status; on-site destinations keep their query", async () => {
    const site = await createTestSite();
    await ok(
      site.call("POST", "/api/custom-urls", { path: "old", targetType: "redirect", toPath: "new?x=1" }),
    );
    await ok(
      site.call("POST", "/api/custom-urls", {
        path: "away",
        targetType: "redirect",
        toPath: "https://example.com/there",
        redirectType: 302,
      }),
    );
    expect(await resolve(site, "/old")).toEqual({
      kind: "redirect",
      path: "/old",
      location: "/new?x=1",
      status: 301,
      reason: "redirect",
    });
    expect(await resolve(site, "/away")).toMatchObject({
      location: "https://example.com/there",
      status: 302,
    });
  });

  it("finds collections (at their oldest alias when they have one) and smart collections", async () => {
    const site = await createTestSite();
    const col = await ok(site.call("POST", "/api/collections", { slug: "books", title: "Books" }));
    const smc = await ok(site.call("POST", "/api/smart-collections", { slug: "links", title: "Links" }));
    expect(await resolve(site, "/books")).toMatchObject({
      kind: "collection",
      canonicalPath: "/books",
      collection: { id: col.body.id, slug: "books", title: "Books" },
    });
    expect(await resolve(site, "/links")).toMatchObject({
      kind: "smart_collection",
      canonicalPath: "/links",
      smartCollection: { id: smc.body.id, slug: "links" },
    });
    await ok(
      site.call("POST", "/api/custom-urls", {
        path: "reading/books",
        targetType: "collection",
        targetId: "books",
      }),
    );
    expect(await resolve(site, "/reading/books")).toMatchObject({
      kind: "collection",
      canonicalPath: "/reading/books",
      collection: { id: col.body.id },
    });
    expect(await resolve(site, "/books")).toMatchObject({
      kind: "redirect",
      location: "/reading/books",
      status: 301,
    });
  });

  it("ignores a query, a fragment and trailing slashes; accepts a path without its leading slash", async () => {
    const site = await createTestSite();
    await post(site, { slug: "tidy" });
    for (const path of ["/tidy/", "/tidy?utm=1", "/tidy#top", "tidy", "/tid%79"]) {
      expect(await resolve(site, path), path).toMatchObject({ kind: "post", path: "/tidy" });
    }
  });

  it("answers not_found for nothing there, the root, reserved paths and any _ or . first segment", async () => {
    const site = await createTestSite();
    // A redirect stored behind the API's back at an address the API refuses: still never served.
    const db = site.engine.context.db;
    for (const [id, path] of [
      ["pth_01h455vb4pex5vsknk084sn02q", "_hidden"],
      ["pth_01h455vb4pex5vsknk084sn02r", ".dotted/x"],
      ["pth_01h455vb4pex5vsknk084sn02s", "plain"],
    ] as const) {
      await db
        .insertInto("site_addresses")
        .values({ path, owner_type: "custom_url", owner_id: id })
        .execute();
      await db
        .insertInto("custom_urls")
        .values({
          id,
          path: `/${path}`,
          target_type: "redirect",
          target_id: null,
          to_path: "/",
          redirect_type: 301,
          created_at: 1,
        })
        .execute();
    }
    expect((await resolve(site, "/plain")).kind).toBe("redirect");
    for (const path of ["/_hidden", "/.dotted/x", "/nothing-here", "/", "/api/posts", "/%E0%A4%A"]) {
      expect((await resolve(site, path)).kind, path).toBe("not_found");
    }
  });

  it("answers 400 for a missing or over-long path", async () => {
    const site = await createTestSite();
    expectError(await site.call("GET", "/api/public/resolve", undefined, anonymous), 400, "VALIDATION_ERROR");
    expectError(
      await site.call("GET", `/api/public/resolve?path=/${"a".repeat(2048)}`, undefined, anonymous),
      400,
      "VALIDATION_ERROR",
    );
  });

  it("answers 404 NOT_FOUND while the public API is off; engine.resolve still answers in-process", async () => {
    const site = await createTestSite({ engineConfig: { settings: { publicApiEnabled: false } } });
    await post(site, { slug: "closed" });
    expectError(
      await site.call("GET", "/api/public/resolve?path=/closed", undefined, anonymous),
      404,
      "NOT_FOUND",
    );
    expectError(await site.call("GET", "/api/public/resolve?path=/closed"), 404, "NOT_FOUND");
    expect((await site.engine.resolve("/closed")).kind).toBe("post");
  });
});

describe("resolving under a site path prefix", () => {
  it("expects the prefix on the path and puts it on every answered address", async () => {
    const site = await createTestSite({ engineConfig: { settings: { sitePathPrefix: "/blog" } } });
    const p = await site.engine.posts.create({ format: "note", bodyMarkdown: "Text", path: "2024/hello" });
    await ok(
      site.call("POST", "/blog/api/custom-urls", {
        path: "old",
        targetType: "redirect",
        toPath: "/2024/hello",
      }),
    );
    await ok(
      site.call("POST", "/blog/api/custom-urls", {
        path: "out",
        targetType: "redirect",
        toPath: "https://example.com/",
      }),
    );
    expect(await resolve(site, "/blog/2024/hello", "/blog")).toMatchObject({
      kind: "post",
      path: "/blog/2024/hello",
      canonicalPath: "/blog/2024/hello",
      post: { id: p.id, permalink: "/blog/2024/hello" },
    });
    expect(await resolve(site, "/blog/2024-hello", "/blog")).toMatchObject({
      kind: "redirect",
      location: "/blog/2024/hello",
    });
    expect(await resolve(site, "/blog/old", "/blog")).toMatchObject({
      location: "/blog/2024/hello",
      status: 301,
    });
    expect(await resolve(site, "/blog/out", "/blog")).toMatchObject({ location: "https://example.com/" });
    for (const outside of ["/2024/hello", "/blog", "/blogger/2024/hello"]) {
      expect((await resolve(site, outside, "/blog")).kind, outside).toBe("not_found");
    }
  });
});
