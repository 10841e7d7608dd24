import { beforeEach, describe, expect, it } from "vitest";
import { openTestEngine } from "../../test/support.js";
import { publicCaller } from "../caller.js";
import type { Engine } from "../engine.js";

let engine: Engine;

beforeEach(async () => {
  ({ engine } = await openTestEngine({ settings: { sitePathPrefix: "/blog" } }));
});

describe("publicPosts.get", () => {
  it("returns the reading view", async () => {
    const post = await engine.posts.create({
      format: "note",
      title: "Hello",
      bodyMarkdown: "Hi",
      attachments: [{ type: "text", content: "notes" }],
    });
    const view = await engine.publicPosts.get({ slug: "hello" }, publicCaller);
    expect(view).toMatchObject({
      id: post.id,
      status: "published",
      visibility: "public",
      title: "Hello",
      permalink: "/blog/hello",
      previewKind: null,
      previewProvider: null,
      previewImageUrl: null,
      quietReply: false,
      collections: [],
      bodyHtml: "<p>Hi</p>",
    });
    for (const key of ["body", "displayTitle", "collectionIds", "url", "sourceName"])
      expect(view).not.toHaveProperty(key);
    expect(view.attachments[0]).not.toHaveProperty("contentUrl");
    expect(view.attachments[0]).toMatchObject({ type: "text", contentFormat: "markdown" });
  });

  it("shows url on links and source fields on quotes", async () => {
    await engine.posts.create({ format: "link", title: "L", url: "https://x.example", slug: "l" });
    await engine.posts.create({ format: "quote", quoteText: "Q", sourceName: "S", slug: "q" });
    expect(await engine.publicPosts.get({ slug: "l" }, publicCaller)).toMatchObject({
      title: "L",
      url: "https://x.example",
    });
    const quote = await engine.publicPosts.get({ slug: "q" }, publicCaller);
    expect(quote).toMatchObject({ sourceName: "S", sourceUrl: null });
    expect(quote).not.toHaveProperty("title");
    expect(quote).not.toHaveProperty("url");
  });

  it("hides drafts and private posts, shows latest_hidden", async () => {
    await engine.posts.create({ format: "note", title: "d", slug: "d", status: "draft" });
    await engine.posts.create({ format: "note", title: "p", slug: "p", visibility: "private" });
    await engine.posts.create({ format: "note", title: "h", slug: "h", visibility: "latest_hidden" });
    expect(await engine.publicPosts.get({ slug: "d" }, publicCaller).catch((e) => e.code)).toBe("NOT_FOUND");
    expect(await engine.publicPosts.get({ slug: "p" }, publicCaller).catch((e) => e.code)).toBe("NOT_FOUND");
    expect(await engine.publicPosts.get({ slug: "missing" }, publicCaller).catch((e) => e.code)).toBe(
      "NOT_FOUND",
    );
    expect((await engine.publicPosts.get({ slug: "h" }, publicCaller)).visibility).toBe("latest_hidden");
  });

  it("is the only post operation a public caller may run", async () => {
    expect(await engine.posts.list({}, publicCaller).catch((e) => e.code)).toBe("UNAUTHORIZED");
    expect(await engine.posts.create({ format: "note" }, publicCaller).catch((e) => e.code)).toBe(
      "UNAUTHORIZED",
    );
  });
});

describe("posts.slug", () => {
  it("suggests free slugs and checks availability", async () => {
    const post = await engine.posts.create({ format: "note", title: "My Post" });
    expect(await engine.posts.slug({ mode: "suggest", title: "My Post" })).toEqual({ slug: "my-post-2" });
    expect(await engine.posts.slug({ mode: "suggest", title: "My Post", postId: post.id })).toEqual({
      slug: "my-post",
    });
    expect(await engine.posts.slug({ mode: "check", slug: "my-post" })).toEqual({
      slug: "my-post",
      available: false,
    });
    expect(await engine.posts.slug({ mode: "check", slug: "my-post", postId: post.id })).toEqual({
      slug: "my-post",
      available: true,
    });
    expect(await engine.posts.slug({ mode: "check", slug: "free" })).toEqual({
      slug: "free",
      available: true,
    });
  });

  it("answers 400 for reserved, invalid or missing candidates", async () => {
    for (const input of [
      { mode: "check", slug: "api" },
      { mode: "check", slug: "Not A Slug" },
      { mode: "check" },
      { mode: "suggest" },
      { mode: "suggest", title: "!!!" },
      { mode: "suggest", title: "RSS" },
      { mode: "other", slug: "x" },
    ]) {
      expect(await engine.posts.slug(input as never).catch((e) => e.code)).toBe("VALIDATION_ERROR");
    }
  });
});
