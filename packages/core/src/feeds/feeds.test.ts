import { TypeID } from "typeid-js";
import { beforeEach, describe, expect, it } from "vitest";
import { openTestEngine } from "../../test/support.js";
import { publicCaller } from "../caller.js";
import type { Engine } from "../engine.js";
import { entryId } from "./feed-document.js";
import { isRawAnswer } from "./raw-answer.js";

let engine: Engine;
const origin = "https://static.example";

beforeEach(async () => {
  ({ engine } = await openTestEngine({ now: 1_700_000_000, settings: { siteName: "Notes & <Co>" } }));
});

describe("feeds in-process", () => {
  it("answers a document a static build can write, for the public caller too", async () => {
    await engine.posts.create({ format: "note", title: "Hello", bodyMarkdown: "Hi" });
    const answer = await engine.feeds.main({ format: "rss", origin }, publicCaller);
    expect(isRawAnswer(answer)).toBe(true);
    expect(answer.contentType).toBe("application/rss+xml; charset=utf-8");
    expect(answer.body).toContain("<title>Notes &amp; &lt;Co&gt;</title>");
    expect(answer.body).toContain(`<link>${origin}/hello</link>`);
    expect(answer.lastModified).toBe(1_700_000_000);
    // The same content gives the same ETag; another format another.
    expect((await engine.feeds.main({ format: "rss", origin })).etag).toBe(answer.etag);
    expect((await engine.feeds.main({ format: "atom", origin })).etag).not.toBe(answer.etag);
  });

  it("names entries by the post ID's UUID, whatever the slug", async () => {
    const post = await engine.posts.create({ format: "note", title: "Hello", bodyMarkdown: "Hi" });
    const id = `urn:uuid:${TypeID.fromString(post.id).toUUID()}`;
    expect(entryId(post.id)).toBe(id);
    expect(entryId("not-a-typeid")).toBe("urn:quire:post:not-a-typeid");
    await engine.posts.update({ id: post.id, slug: "elsewhere" });
    const body = (await engine.feeds.latest({ format: "json", origin })).body;
    expect(JSON.parse(body).items[0]).toMatchObject({ id, url: `${origin}/elsewhere` });
  });

  it("uses the engine's links.siteOrigin when no origin is passed, and refuses a non-origin", async () => {
    const { engine: linked } = await openTestEngine({
      links: {
        siteOrigin: "https://linked.example",
        attachmentContent: () => "",
        uploadBody: () => "",
        uploadPart: () => "",
      },
    });
    await linked.posts.create({ format: "note", title: "Hello", bodyMarkdown: "Hi" });
    expect((await linked.feeds.latest({ format: "atom" })).body).toContain("https://linked.example/hello");
    await expect(engine.feeds.latest({ format: "atom", origin: "ftp://x.example" })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
  });

  it("writes robots.txt without a Sitemap line when no origin is known", async () => {
    expect((await engine.feeds.robots({})).body).toBe("User-agent: *\nDisallow: /api/\n");
    expect((await engine.feeds.robots({ origin })).body).toContain(`Sitemap: ${origin}/sitemap.xml`);
  });

  it("answers an empty feed with no Last-Modified time before anything is published", async () => {
    await engine.posts.create({ format: "note", title: "Draft", status: "draft", bodyMarkdown: "x" });
    const answer = await engine.feeds.featured({ format: "json", origin });
    expect(JSON.parse(answer.body).items).toEqual([]);
    expect(answer.lastModified).toBe(0);
  });
});
