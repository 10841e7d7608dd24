import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

let site: TestSite;
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now: 1_700_000_000 } });
});

async function post(body: object = {}): Promise<{ id: string; slug: string }> {
  const res = await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "Text", ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function customUrl(body: object): Promise<{ id: string; path: string }> {
  const res = await site.call("POST", "/api/custom-urls", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function permalinkOf(slug: string): Promise<string> {
  const res = await site.call("GET", `/api/public/posts/${slug}`);
  expect(res.status).toBe(200);
  return res.body.permalink;
}

async function listAll(): Promise<{ id: string; path: string }[]> {
  const res = await site.call("GET", "/api/custom-urls");
  expect(res.status).toBe(200);
  return res.body.customUrls;
}

describe("POST /api/custom-urls", () => {
  it("creates a post alias by ID or slug; the path gets its leading slash", async () => {
    const p = await post({ slug: "hello" });
    const byId = await site.call("POST", "/api/custom-urls", {
      path: "old/hello.html",
      targetType: "post",
      targetId: p.id,
    });
    expect(byId.status).toBe(201);
    expect(byId.body).toEqual({
      id: expect.stringMatching(/^pth_/),
      path: "/old/hello.html",
      targetType: "post",
      targetId: p.id,
      toPath: null,
      redirectType: null,
      createdAt: 1_700_000_000,
    });
    const bySlug = await customUrl({ path: "/older/hello", targetType: "post", targetId: "hello" });
    expect(bySlug).toMatchObject({ path: "/older/hello", targetId: p.id });
  });

  it("creates redirects: 301 by default, 302 on request, on-site paths with a slash, absolute http(s) URLs", async () => {
    const a = await customUrl({ path: "from-a", targetType: "redirect", toPath: "to/a" });
    expect(a).toMatchObject({ path: "/from-a", targetId: null, toPath: "/to/a", redirectType: 301 });
    const b = await customUrl({
      path: "from-b",
      targetType: "redirect",
      toPath: "https://example.com/x?y=1#z",
      redirectType: 302,
    });
    expect(b).toMatchObject({ toPath: "https://example.com/x?y=1#z", redirectType: 302 });
    const c = await customUrl({ path: "/from-c", targetType: "redirect", toPath: "/", redirectType: null });
    expect(c).toMatchObject({ toPath: "/", redirectType: 301 });
  });

  it("answers 400 naming the field for bad input, storing nothing", async () => {
    const p = await post({ slug: "target" });
    const long = "a".repeat(201);
    const cases: [object, string][] = [
      [{ targetType: "post", targetId: p.id }, "path"],
      [{ path: "x", targetType: "page", targetId: p.id }, "targetType"],
      [{ path: "x", targetType: "post" }, "targetId"],
      [{ path: "x", targetType: "post", targetId: null }, "targetId"],
      [{ path: "x", targetType: "post", targetId: "pst_nope" }, "targetId"],
      [{ path: "x", targetType: "post", targetId: "pst_01h455vb4pex5vsknk084sn02q" }, "targetId"],
      [{ path: "x", targetType: "post", targetId: "med_01h455vb4pex5vsknk084sn02q" }, "targetId"],
      [{ path: "x", targetType: "post", targetId: "no-such-slug" }, "targetId"],
      [{ path: "x", targetType: "post", targetId: "Not A Slug" }, "targetId"],
      [{ path: "x", targetType: "post", targetId: 5 }, "targetId"],
      [{ path: "x", targetType: "post", targetId: p.id, toPath: "/y" }, "toPath"],
      [{ path: "x", targetType: "post", targetId: p.id, redirectType: 301 }, "redirectType"],
      [{ path: "x", targetType: "redirect" }, "toPath"],
      [{ path: "x", targetType: "redirect", toPath: null }, "toPath"],
      [{ path: "x", targetType: "redirect", toPath: "/y", targetId: p.id }, "targetId"],
      [{ path: "x", targetType: "redirect", toPath: "/y", redirectType: "302" }, "redirectType"],
      [{ path: "x", targetType: "redirect", toPath: "/y", redirectType: 307 }, "redirectType"],
      [{ path: "x", targetType: "redirect", toPath: "ftp://example.com/" }, "toPath"],
      [{ path: "x", targetType: "redirect", toPath: "javascript:alert(1)" }, "toPath"],
      [{ path: "x", targetType: "redirect", toPath: "//evil.example/" }, "toPath"],
      [{ path: "x", targetType: "redirect", toPath: "/a b" }, "toPath"],
      [{ path: "x", targetType: "redirect", toPath: `/${"a".repeat(2048)}` }, "toPath"],
      [{ path: "x", targetType: "redirect", toPath: "/x" }, "toPath"],
      [{ path: "x/y", targetType: "redirect", toPath: "x/y/?q=1" }, "toPath"],
      [{ path: "", targetType: "post", targetId: p.id }, "path"],
      [{ path: "/", targetType: "post", targetId: p.id }, "path"],
      [{ path: "api/x", targetType: "post", targetId: p.id }, "path"],
      [{ path: "media", targetType: "post", targetId: p.id }, "path"],
      [{ path: "_drafts/x", targetType: "post", targetId: p.id }, "path"],
      [{ path: ".well-known/x", targetType: "post", targetId: p.id }, "path"],
      // The static build's own files: a redirect at 404.html failed the build.
      [{ path: "404.html", targetType: "redirect", toPath: "/hello" }, "path"],
      [{ path: "index.html", targetType: "post", targetId: p.id }, "path"],
      [{ path: "Upper/Case", targetType: "post", targetId: p.id }, "path"],
      [{ path: "a//b", targetType: "post", targetId: p.id }, "path"],
      [{ path: "a/../b", targetType: "post", targetId: p.id }, "path"],
      [{ path: "a/", targetType: "post", targetId: p.id }, "path"],
      [{ path: "//a", targetType: "post", targetId: p.id }, "path"],
      [{ path: "a b", targetType: "post", targetId: p.id }, "path"],
      [{ path: long, targetType: "post", targetId: p.id }, "path"],
      [{ path: 12, targetType: "post", targetId: p.id }, "path"],
    ];
    for (const [body, field] of cases) {
      const res = await site.call("POST", "/api/custom-urls", body);
      expectError(res, 400, "VALIDATION_ERROR", JSON.stringify(body));
      expect(Object.keys(res.body.details?.fieldErrors ?? {}), JSON.stringify(body)).toContain(field);
    }
    expect(await listAll()).toEqual([]);
    expect(await permalinkOf("target")).toBe("/target");
    // The address of every refused path is still free.
    await customUrl({ path: "x", targetType: "post", targetId: p.id });
  });

  it("accepts a path of exactly 200 characters after the slash", async () => {
    const p = await post();
    const path = `/${"a".repeat(200)}`;
    expect((await customUrl({ path, targetType: "post", targetId: p.id })).path).toBe(path);
  });

  it("answers 409 when the address is held by a post or another custom URL", async () => {
    const p = await post({ slug: "taken" });
    expectError(
      await site.call("POST", "/api/custom-urls", { path: "/taken", targetType: "post", targetId: p.id }),
      409,
      "CONFLICT",
    );
    await customUrl({ path: "/once", targetType: "redirect", toPath: "/taken" });
    expectError(
      await site.call("POST", "/api/custom-urls", { path: "once", targetType: "post", targetId: p.id }),
      409,
      "CONFLICT",
    );
    expect(await listAll()).toHaveLength(1);
  });

  it("needs a session or token", async () => {
    const res = await site.call(
      "POST",
      "/api/custom-urls",
      { path: "x", targetType: "redirect", toPath: "/" },
      {
        authorization: "",
      },
    );
    expectError(res, 401, "UNAUTHORIZED");
    expectError(
      await site.call("GET", "/api/custom-urls", undefined, { authorization: "" }),
      401,
      "UNAUTHORIZED",
    );
  });
});

describe("a post's permalink follows its oldest custom URL", () => {
  it("moves to the next oldest when the oldest goes, and back to /{slug} when none is left", async () => {
    const p = await post({ slug: "moving" });
    const first = await customUrl({ path: "first", targetType: "post", targetId: p.id });
    const second = await customUrl({ path: "second", targetType: "post", targetId: p.id });
    site.clock.advance(10);
    const third = await customUrl({ path: "third", targetType: "post", targetId: p.id });
    expect(await permalinkOf("moving")).toBe("/first");
    expect((await site.call("DELETE", `/api/custom-urls/${first.id}`)).body).toEqual({ success: true });
    expect(await permalinkOf("moving")).toBe("/second");
    await site.call("DELETE", `/api/custom-urls/${second.id}`);
    expect(await permalinkOf("moving")).toBe("/third");
    await site.call("DELETE", `/api/custom-urls/${third.id}`);
    expect(await permalinkOf("moving")).toBe("/moving");
  });

  it("a post created with a path keeps that alias as its permalink until it is removed", async () => {
    const p = await post({ path: "2024/01/hello-world" });
    expect(p.slug).toBe("2024-01-hello-world");
    const [alias] = await listAll();
    expect(alias).toMatchObject({ path: "/2024/01/hello-world", targetType: "post", targetId: p.id });
    await customUrl({ path: "later", targetType: "post", targetId: p.id });
    expect(await permalinkOf(p.slug)).toBe("/2024/01/hello-world");
    await site.call("DELETE", `/api/custom-urls/${alias?.id}`);
    expect(await permalinkOf(p.slug)).toBe("/later");
  });

  it("moving an alias to another post moves both permalinks", async () => {
    const a = await post({ slug: "post-a" });
    const b = await post({ slug: "post-b" });
    const url = await customUrl({ path: "shared/alias", targetType: "post", targetId: a.id });
    expect(await permalinkOf("post-a")).toBe("/shared/alias");
    const res = await site.call("PUT", `/api/custom-urls/${url.id}`, { targetId: "post-b" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ targetType: "post", targetId: b.id, path: "/shared/alias" });
    expect(await permalinkOf("post-a")).toBe("/post-a");
    expect(await permalinkOf("post-b")).toBe("/shared/alias");
  });

  it("a deleted post takes its custom URLs and their addresses with it", async () => {
    const p = await post({ slug: "gone" });
    await customUrl({ path: "gone-alias", targetType: "post", targetId: p.id });
    await site.call("DELETE", `/api/posts/${p.id}`);
    expect(await listAll()).toEqual([]);
    await customUrl({ path: "gone-alias", targetType: "redirect", toPath: "/" });
  });
});

describe("PUT /api/custom-urls/:id", () => {
  it("moves the path: the old address is free at once, the new one is held", async () => {
    const p = await post({ slug: "target" });
    const url = await customUrl({ path: "before", targetType: "post", targetId: p.id });
    const res = await site.call("PUT", `/api/custom-urls/${url.id}`, { path: "after" });
    expect(res.body).toMatchObject({ id: url.id, path: "/after", targetId: p.id });
    expect(await permalinkOf("target")).toBe("/after");
    expect((await post({ slug: "before" })).slug).toBe("before");
    expectError(await site.call("POST", "/api/posts", { format: "note", slug: "after" }), 409, "CONFLICT");
  });

  it("switches between alias and redirect, clearing the old kind's fields", async () => {
    const p = await post({ slug: "target" });
    const url = await customUrl({ path: "switch", targetType: "post", targetId: p.id });
    const toRedirect = await site.call("PUT", `/api/custom-urls/${url.id}`, {
      targetType: "redirect",
      toPath: "/elsewhere",
    });
    expect(toRedirect.body).toMatchObject({
      targetType: "redirect",
      targetId: null,
      toPath: "/elsewhere",
      redirectType: 301,
    });
    expect(await permalinkOf("target")).toBe("/target");
    const only302 = await site.call("PUT", `/api/custom-urls/${url.id}`, { redirectType: 302 });
    expect(only302.body).toMatchObject({ toPath: "/elsewhere", redirectType: 302 });
    const back = await site.call("PUT", `/api/custom-urls/${url.id}`, { targetType: "post", targetId: p.id });
    expect(back.body).toMatchObject({ targetType: "post", targetId: p.id, toPath: null, redirectType: null });
    expect(await permalinkOf("target")).toBe("/switch");
  });

  it("answers 400 or 404 for bad changes, changing nothing", async () => {
    const p = await post({ slug: "target" });
    const url = await customUrl({ path: "keep", targetType: "post", targetId: p.id });
    const bad: [object, string][] = [
      [{ targetType: "redirect" }, "toPath"],
      [{ targetType: "redirect", toPath: "/keep" }, "toPath"],
      [{ toPath: "/x" }, "toPath"],
      [{ redirectType: 302 }, "redirectType"],
      [{ targetId: null }, "targetId"],
      [{ targetId: "pst_01h455vb4pex5vsknk084sn02q" }, "targetId"],
      [{ path: "api" }, "path"],
      [{ path: null }, "path"],
    ];
    for (const [body, field] of bad) {
      const res = await site.call("PUT", `/api/custom-urls/${url.id}`, body);
      expectError(res, 400, "VALIDATION_ERROR", JSON.stringify(body));
      expect(Object.keys(res.body.details?.fieldErrors ?? {}), JSON.stringify(body)).toContain(field);
    }
    await post({ slug: "held" });
    expectError(await site.call("PUT", `/api/custom-urls/${url.id}`, { path: "held" }), 409, "CONFLICT");
    expectError(await site.call("PUT", "/api/custom-urls/pth_nope", { path: "x" }), 400, "VALIDATION_ERROR");
    expectError(
      await site.call("PUT", "/api/custom-urls/pth_01h455vb4pex5vsknk084sn02q", { path: "x" }),
      404,
      "NOT_FOUND",
    );
    expect(await listAll()).toEqual([
      expect.objectContaining({ id: url.id, path: "/keep", targetType: "post", targetId: p.id }),
    ]);
    expect(await permalinkOf("target")).toBe("/keep");
  });
});

describe("DELETE /api/custom-urls/:id", () => {
  it("answers ok-body, frees the address, then 404", async () => {
    const url = await customUrl({ path: "bye", targetType: "redirect", toPath: "/" });
    expect((await site.call("DELETE", `/api/custom-urls/${url.id}`)).body).toEqual({ success: true });
    expectError(await site.call("DELETE", `/api/custom-urls/${url.id}`), 404, "NOT_FOUND");
    expectError(await site.call("DELETE", "/api/custom-urls/not-an-id"), 400, "VALIDATION_ERROR");
    expect((await post({ slug: "bye" })).slug).toBe("bye");
  });
});

describe("GET /api/custom-urls", () => {
  it("pages newest first by createdAt then ID; limit is clamped to 1..100", async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await customUrl({ path: `r${i}`, targetType: "redirect", toPath: "/" })).id);
      if (i === 2) site.clock.advance(5);
    }
    const newestFirst = [...made].reverse();
    const first = await site.call("GET", "/api/custom-urls?limit=2");
    expect(first.body.customUrls.map((u: { id: string }) => u.id)).toEqual(newestFirst.slice(0, 2));
    expect(typeof first.body.nextCursor).toBe("string");
    const second = await site.call("GET", `/api/custom-urls?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.customUrls.map((u: { id: string }) => u.id)).toEqual(newestFirst.slice(2, 4));
    const third = await site.call("GET", `/api/custom-urls?limit=2&cursor=${second.body.nextCursor}`);
    expect(third.body.customUrls.map((u: { id: string }) => u.id)).toEqual(newestFirst.slice(4));
    expect(third.body.nextCursor).toBeNull();

    expect((await site.call("GET", "/api/custom-urls?limit=0")).body.customUrls).toHaveLength(1);
    const clamped = await site.call("GET", "/api/custom-urls?limit=500");
    expect(clamped.body.customUrls).toHaveLength(5);
    expect(clamped.body.nextCursor).toBeNull();
    expectError(await site.call("GET", "/api/custom-urls?limit=abc"), 400, "VALIDATION_ERROR");
    expectError(await site.call("GET", "/api/custom-urls?cursor=garbage"), 400, "VALIDATION_ERROR");
    expectError(await site.call("GET", `/api/custom-urls?cursor=${made[0]}`), 400, "VALIDATION_ERROR");
  });

  it("walks more than 100 in pages of at most 100", async () => {
    for (let i = 0; i < 102; i++) await customUrl({ path: `many-${i}`, targetType: "redirect", toPath: "/" });
    const first = await site.call("GET", "/api/custom-urls");
    expect(first.body.customUrls).toHaveLength(100);
    const rest = await site.call("GET", `/api/custom-urls?cursor=${first.body.nextCursor}`);
    expect(rest.body.customUrls).toHaveLength(2);
    expect(rest.body.nextCursor).toBeNull();
    const seen = new Set(
      [...first.body.customUrls, ...rest.body.customUrls].map((u: { id: string }) => u.id),
    );
    expect(seen.size).toBe(102);
  });
});
