import { beforeEach, describe, expect, it } from "vitest";
import { openTestEngine } from "../../test/support.js";
import { publicCaller } from "../caller.js";
import type { Engine } from "../engine.js";
import { isEngineError } from "../errors.js";
import { isSelfRedirect, normalizeCustomUrlPath, normalizeToPath } from "./custom-url-paths.js";

describe("custom URL paths", () => {
  it("normalises a path to one leading slash and refuses what the post path grammar refuses", () => {
    expect(normalizeCustomUrlPath("a/b.html")).toBe("/a/b.html");
    expect(normalizeCustomUrlPath("/a")).toBe("/a");
    for (const bad of ["", "/", "//a", "a/", "A", "a b", "a/./b", "api", "_x", ".x", "x".repeat(201)]) {
      expect(() => normalizeCustomUrlPath(bad), bad).toThrow();
    }
  });

  it("keeps absolute http(s) destinations, adds a slash to on-site ones, refuses the rest", () => {
    expect(normalizeToPath("https://example.com/a")).toBe("https://example.com/a");
    expect(normalizeToPath("a?b=1")).toBe("/a?b=1");
    expect(normalizeToPath("/")).toBe("/");
    for (const bad of ["", "mailto:a@b.c", "javascript:x", "//host/a", "/a\\b", "/a\tb", "http://"]) {
      expect(() => normalizeToPath(bad), bad).toThrow();
    }
  });

  it("sees a redirect to its own path, query, fragment and trailing slashes aside", () => {
    expect(isSelfRedirect("/a/b", "/a/b/?x#y")).toBe(true);
    expect(isSelfRedirect("/a/b", "/a/b/c")).toBe(false);
    expect(isSelfRedirect("/a", "https://example.com/a")).toBe(false);
  });
});

describe("custom URLs in-process", () => {
  let engine: Engine;
  beforeEach(async () => {
    ({ engine } = await openTestEngine({ settings: { sitePathPrefix: "/blog" } }));
  });

  it("owner operations refuse a public caller; resolve answers one", async () => {
    const error = await engine.customUrls
      .create({ path: "x", targetType: "redirect", toPath: "/" }, publicCaller)
      .catch((err: unknown) => err);
    expect(isEngineError(error) && error.code).toBe("UNAUTHORIZED");
    expect(await engine.resolve("/blog/x")).toEqual({ kind: "not_found", path: "/blog/x" });
  });

  it("engine.resolve and addresses.resolve answer alike, with the site path prefix", async () => {
    const post = await engine.posts.create({ format: "note", title: "Hi", bodyMarkdown: "x" });
    const url = await engine.customUrls.create({ path: "greeting", targetType: "post", targetId: post.id });
    expect(url.path).toBe("/greeting");
    const found = await engine.resolve("/blog/greeting");
    expect(found).toMatchObject({ kind: "post", canonicalPath: "/blog/greeting", post: { id: post.id } });
    expect(await engine.addresses.resolve({ path: "/blog/greeting" })).toEqual(found);
    expect(await engine.resolve("/blog/hi")).toMatchObject({ kind: "redirect", location: "/blog/greeting" });
  });
});
