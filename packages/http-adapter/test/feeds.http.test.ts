import { XMLParser, XMLValidator } from "fast-xml-parser";
import { parseAtomFeed, parseJsonFeed, parseRssFeed } from "feedsmith";
import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, type TestSite } from "./helpers.js";

const now = 1_700_000_000;
let site: TestSite;
/** The site's path prefix, before /api in the owner's calls. */
let prefix = "";
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now } });
  prefix = "";
});

/** A raw GET through the handler (feeds are not JSON), as an anonymous reader. */
async function get(path: string, headers: Record<string, string> = {}) {
  const response = await site.handler(new Request(`https://example.com${path}`, { headers }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function post(fields: Record<string, unknown>) {
  const res = await site.call("POST", `${prefix}/api/posts`, { format: "note", ...fields });
  expect(res.status).toBe(201);
  return res.body as { id: string; slug: string };
}

async function settings(values: Record<string, string>) {
  const res = await site.call("PUT", "/api/settings", values);
  expect(res.status).toBe(200);
}

/** Well-formed XML (a real parser's validator), then Atom as feedsmith reads it, checked against RFC 4287's required elements. */
function atom(text: string) {
  expect(XMLValidator.validate(text)).toBe(true);
  const feed = parseAtomFeed(text);
  expect(feed.id).toBeTruthy();
  expect(feed.title).toBeTruthy();
  expect(feed.updated).toBeTruthy();
  expect(feed.links?.some((link) => link.rel === "self")).toBe(true);
  // RFC 4287 § 4.1.1: an author on the feed or on every entry.
  expect(feed.authors?.length ?? 0).toBeGreaterThan(0);
  for (const entry of feed.entries ?? []) {
    expect(entry.id).toMatch(/^urn:/);
    expect(entry.title).toBeDefined();
    expect(entry.updated).toBeTruthy();
  }
  return feed;
}

/** Well-formed RSS 2.0 with its channel's required elements and items with a title or description. */
function rss(text: string) {
  expect(XMLValidator.validate(text)).toBe(true);
  const raw = new XMLParser({ ignoreAttributes: false }).parse(text);
  expect(raw.rss["@_version"]).toBe("2.0");
  const feed = parseRssFeed(text);
  expect(feed.title).toBeTruthy();
  expect(feed.link).toBeTruthy();
  expect(feed.description).toBeDefined();
  // RSS's <author> must be an e-mail address: the feeds name none.
  for (const item of [raw.rss.channel.item ?? []].flat()) expect(item).not.toHaveProperty("author");
  for (const item of feed.items ?? []) {
    expect(item.title ?? item.description).toBeTruthy();
    expect(item.guid?.value).toMatch(/^urn:/);
    expect(item.guid?.isPermaLink).toBe(false);
    expect(Number.isNaN(Date.parse(item.pubDate ?? ""))).toBe(false);
  }
  return feed;
}

/** JSON Feed 1.1 (https://jsonfeed.org/version/1.1): version, title, items each with a unique string id and content. */
function jsonFeed(text: string) {
  const document = JSON.parse(text);
  expect(document.version).toBe("https://jsonfeed.org/version/1.1");
  expect(typeof document.title).toBe("string");
  expect(Array.isArray(document.items)).toBe(true);
  const ids = new Set<string>();
  for (const item of document.items) {
    expect(typeof item.id).toBe("string");
    ids.add(item.id);
    expect(typeof item.content_html === "string" || typeof item.content_text === "string").toBe(true);
    if (item.date_published !== undefined) expect(Number.isNaN(Date.parse(item.date_published))).toBe(false);
  }
  expect(ids.size).toBe(document.items.length);
  const feed = parseJsonFeed(text);
  expect(feed.items ?? []).toHaveLength(document.items.length);
  return document;
}

describe("feeds", () => {
  it("lists the latest public Threads, newest first, in RSS, Atom and JSON Feed that real parsers read", async () => {
    const first = await post({ title: "First & <one>", bodyMarkdown: "Hello **world** & <friends>" });
    site.clock.advance(10);
    const second = await post({ title: "Second", bodyMarkdown: "Two ]]> tricky" });
    site.clock.advance(10);
    await post({ title: "Hidden", visibility: "latest_hidden", bodyMarkdown: "not in latest" });
    await post({ title: "Private", visibility: "private", bodyMarkdown: "never" });
    await post({ title: "Draft", status: "draft", bodyMarkdown: "never" });
    await post({ replyToId: first.id, bodyMarkdown: "a reply is not an entry" });

    const r = await get("/feeds/latest/rss");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8");
    const channel = rss(r.text);
    expect(channel.items?.map((item) => item.title)).toEqual(["Second", "First & <one>"]);
    expect(channel.items?.[0]?.link).toBe(`https://example.com/${second.slug}`);
    expect(channel.items?.[1]?.content?.encoded).toContain("Hello <strong>world</strong>");

    const a = await get("/feeds/latest/atom");
    expect(a.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    const feed = atom(a.text);
    expect(feed.entries?.map((entry) => entry.links?.[0]?.href)).toEqual([
      `https://example.com/${second.slug}`,
      `https://example.com/${first.slug}`,
    ]);
    // The title is HTML in Atom: the reader decodes it back to the text.
    expect(feed.entries?.[1]?.title?.value).toBe("First &amp; &lt;one&gt;");
    expect(feed.entries?.[0]?.content?.value).toContain("Two ]]> tricky");

    const j = await get("/feeds/latest/json");
    expect(j.headers.get("content-type")).toBe("application/feed+json; charset=utf-8");
    const document = jsonFeed(j.text);
    expect(document.items.map((item: { title: string }) => item.title)).toEqual(["Second", "First & <one>"]);
    expect(document.items[1].content_html).toContain("<strong>world</strong>");
    expect(document.items[1].date_published).toBe(new Date(now * 1000).toISOString());
  });

  it("carries the site's language in every format, and a summary even where a post has no body", async () => {
    await site.call("PUT", "/api/settings", { SITE_LANGUAGE: "de" });
    await post({
      format: "link",
      url: "https://x.example/",
      title: "Lnk",
      summary: "My summary",
      bodyMarkdown: "",
    });
    // Atom had no language (the library's Atom writer leaves it out), and the JSON Feed item had
    // no summary (the library writes one only beside content).
    const a = await get("/feeds/latest/atom");
    expect(a.text).toMatch(/<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom" xml:lang="de">/);
    expect(atom(a.text).entries?.[0]?.summary?.value).toBe("My summary");
    expect(rss((await get("/feeds/latest/rss")).text).language).toBe("de");
    const document = jsonFeed((await get("/feeds/latest/json")).text);
    expect(document.language).toBe("de");
    expect(document.items[0].summary).toBe("My summary");
  });

  it("leaves out of RSS and Atom the characters XML cannot carry, which a post's text may hold", async () => {
    // Control characters pasted into a title, a summary or a body, and a noncharacter: all stored
    // as sent (the API takes them), but XML 1.0 has no way to write them, escaped or not, and a
    // strict reader refuses the whole feed for one of them.
    await post({
      title: "Bell\u0007 and\u000b tab",
      summary: "Form\u000cfeed\uFFFE",
      bodyMarkdown: "Escape \u001b[31mred and \u0001 start, emoji 🎉 kept",
    });
    const outsideXml = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
    for (const format of ["rss", "atom"]) {
      const feed = await get(`/feeds/${format}`);
      expect(feed.status, format).toBe(200);
      expect(outsideXml.exec(feed.text), format).toBeNull();
      expect(feed.text, format).toContain("Bell and tab");
      expect(feed.text, format).toContain("🎉 kept");
      expect(XMLValidator.validate(feed.text), format).toBe(true);
    }
    // JSON can carry them (escaped), and the JSON feed keeps the text as stored.
    const json = JSON.parse((await get("/feeds/json")).text) as { items: { title: string }[] };
    expect(json.items[0]?.title).toBe("Bell\u0007 and\u000b tab");
  });

  it("keeps entry ids when a slug changes, and links follow the new address", async () => {
    const one = await post({ title: "Rename me", bodyMarkdown: "x" });
    const before = atom((await get("/feeds/latest/atom")).text).entries?.[0];
    const renamed = await site.call("PUT", `/api/posts/${one.id}`, { slug: "a-new-address" });
    expect(renamed.status).toBe(200);
    const after = atom((await get("/feeds/latest/atom")).text).entries?.[0];
    expect(after?.id).toBe(before?.id);
    expect(after?.links?.[0]?.href).toBe("https://example.com/a-new-address");
    const rssAfter = rss((await get("/feeds/latest/rss")).text).items?.[0];
    expect(rssAfter?.guid?.value).toBe(before?.id);
    expect(JSON.parse((await get("/feeds/latest/json")).text).items[0].id).toBe(before?.id);
  });

  it("lists featured Threads (latest-hidden ones too, never private) in the featured feed and the main feed per MAIN_RSS_FEED", async () => {
    await post({ title: "Plain", bodyMarkdown: "x" });
    await post({ title: "Star", featured: true, bodyMarkdown: "x" });
    await post({ title: "Quiet star", featured: true, visibility: "latest_hidden", bodyMarkdown: "x" });
    await post({ title: "Secret star", featured: true, visibility: "private", bodyMarkdown: "x" });
    const titles = (text: string) => rss(text).items?.map((item) => item.title);
    expect(titles((await get("/feeds/featured/rss")).text)).toEqual(["Quiet star", "Star"]);
    expect(titles((await get("/rss")).text)).toEqual(["Star", "Plain"]);
    await settings({ MAIN_RSS_FEED: "featured" });
    expect(titles((await get("/rss")).text)).toEqual(["Quiet star", "Star"]);
    expect(atom((await get("/feeds/atom")).text).entries?.length).toBe(2);
    expect(jsonFeed((await get("/feeds/json")).text).items.length).toBe(2);
  });

  it("honours RSS_FEED_LIMIT and RSS_PUBLISH_DELAY_SECONDS", async () => {
    for (const n of [1, 2, 3]) {
      await post({ title: `Post ${n}`, bodyMarkdown: "x" });
      site.clock.advance(100);
    }
    await settings({ RSS_FEED_LIMIT: "2" });
    expect(rss((await get("/feeds/latest/rss")).text).items?.map((i) => i.title)).toEqual([
      "Post 3",
      "Post 2",
    ]);
    // Now is 300 s after the first post: a 150 s delay leaves out Post 3 (published 100 s ago).
    await settings({ RSS_FEED_LIMIT: "20", RSS_PUBLISH_DELAY_SECONDS: "150" });
    expect(rss((await get("/feeds/latest/rss")).text).items?.map((i) => i.title)).toEqual([
      "Post 2",
      "Post 1",
    ]);
    site.clock.advance(100);
    expect(rss((await get("/feeds/latest/rss")).text).items?.map((i) => i.title)).toEqual([
      "Post 3",
      "Post 2",
      "Post 1",
    ]);
  });

  it("answers 404 when RSS_FEEDS_ENABLED or PUBLIC_API_ENABLED is false", async () => {
    await post({ title: "x", bodyMarkdown: "x" });
    await settings({ RSS_FEEDS_ENABLED: "false" });
    for (const path of ["/rss", "/feeds/atom", "/feeds/latest/json", "/feeds/featured/rss"]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.text).code).toBe("NOT_FOUND");
    }
    expect((await get("/sitemap.xml")).status).toBe(200);
    await settings({ RSS_FEEDS_ENABLED: "true", PUBLIC_API_ENABLED: "false" });
    expect((await get("/feeds/latest/rss")).status).toBe(404);
    expect((await get("/sitemap.xml")).status).toBe(404);
    expect(
      await site.engine.feeds.latest({ format: "rss", origin: "https://example.com" }).catch((e) => e.code),
    ).toBe("NOT_FOUND");
  });

  it("answers 400 naming the field for an unknown format", async () => {
    const res = await get("/feeds/latest/xml");
    expect(res.status).toBe(400);
    const body = JSON.parse(res.text);
    expect(body.code).toBe("VALIDATION_ERROR");
    expect(body.details.fieldErrors).toHaveProperty("format");
  });

  it("serves a collection's feed by slug, with its pinned or not Threads newest first, and 404 for an unknown one", async () => {
    const collection = await site.call("POST", "/api/collections", { title: "Birds", slug: "birds" });
    expect(collection.status).toBe(201);
    const a = await post({ title: "Heron", bodyMarkdown: "x" });
    site.clock.advance(5);
    const b = await post({ title: "Crow", visibility: "latest_hidden", bodyMarkdown: "x" });
    const c = await post({ title: "Secret", visibility: "private", bodyMarkdown: "x" });
    await post({ title: "Not a bird", bodyMarkdown: "x" });
    for (const id of [a.id, b.id, c.id]) {
      const res = await site.call("POST", `/api/collections/${collection.body.id}/threads`, { threadId: id });
      expect(res.status).toBeLessThan(300);
    }
    const feed = atom((await get("/feeds/collections/birds/atom")).text);
    expect(feed.title?.value).toContain("Birds");
    expect(feed.entries?.map((entry) => entry.title?.value)).toEqual(["Crow", "Heron"]);
    expect(feed.links?.find((link) => link.rel === "alternate")?.href).toBe("https://example.com/birds");
    expect(rss((await get("/feeds/collections/birds/rss")).text).items?.length).toBe(2);
    expect(jsonFeed((await get("/feeds/collections/birds/json")).text).items.length).toBe(2);
    expect((await get("/feeds/collections/fish/rss")).status).toBe(404);
    // The feed keeps its ID when the collection's slug changes; its links follow the new slug.
    const moved = await site.call("PUT", `/api/collections/${collection.body.id}`, { slug: "all-birds" });
    expect(moved.status).toBe(200);
    const after = atom((await get("/feeds/collections/all-birds/atom")).text);
    expect(after.id).toBe(feed.id);
    expect(after.id).toMatch(/^urn:uuid:/);
    expect(after.links?.find((link) => link.rel === "self")?.href).toBe(
      "https://example.com/feeds/collections/all-birds/atom",
    );
  });

  it("answers conditional GETs with 304 on a matching ETag or an unchanged Last-Modified", async () => {
    await post({ title: "One", bodyMarkdown: "x" });
    const first = await get("/feeds/latest/atom");
    const etag = first.headers.get("etag") as string;
    const lastModified = first.headers.get("last-modified") as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(lastModified).toBe(new Date(now * 1000).toUTCString());
    const again = await get("/feeds/latest/atom", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    expect((await get("/feeds/latest/atom", { "if-none-match": `W/${etag}` })).status).toBe(304);
    expect((await get("/feeds/latest/atom", { "if-modified-since": lastModified })).status).toBe(304);
    expect(
      (await get("/feeds/latest/atom", { "if-none-match": '"other"', "if-modified-since": lastModified }))
        .status,
    ).toBe(200);
    // Another format is another body, so another ETag.
    expect((await get("/feeds/latest/rss", { "if-none-match": etag })).status).toBe(200);
    // A new entry changes both validators.
    site.clock.advance(60);
    await post({ title: "Two", bodyMarkdown: "x" });
    const changed = await get("/feeds/latest/atom", {
      "if-none-match": etag,
      "if-modified-since": lastModified,
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(changed.headers.get("last-modified")).toBe(new Date((now + 60) * 1000).toUTCString());
    // A setting that changes the body changes the ETag too.
    const before = (await get("/feeds/latest/atom")).headers.get("etag");
    await settings({ SITE_NAME: "Renamed" });
    const renamed = await get("/feeds/latest/atom", { "if-none-match": before as string });
    expect(renamed.status).toBe(200);
    expect(atom(renamed.text).title?.value).toBe("Renamed");
  });

  it("writes links under the site path prefix and the request's origin", async () => {
    site = await createTestSite({ engineConfig: { now, settings: { sitePathPrefix: "/blog" } } });
    prefix = "/blog";
    const one = await post({ title: "Prefixed", bodyMarkdown: "x" });
    const res = await site.handler(new Request("http://notes.example:8080/blog/feeds/latest/atom"));
    expect(res.status).toBe(200);
    const feed = atom(await res.text());
    expect(feed.entries?.[0]?.links?.[0]?.href).toBe(`http://notes.example:8080/blog/${one.slug}`);
    const self = feed.links?.find((link) => link.rel === "self")?.href as string;
    expect(self).toBe("http://notes.example:8080/blog/feeds/latest/atom");
    expect((await site.handler(new Request(self))).status).toBe(200);
    expect((await site.handler(new Request("http://notes.example:8080/feeds/latest/atom"))).status).toBe(404);
  });

  it("writes links under the handler's siteOrigin (SITE_ORIGIN) rather than the request's", async () => {
    site = await createTestSite({ engineConfig: { now }, siteOrigin: "https://public.example/" });
    const one = await post({ title: "Behind a proxy", bodyMarkdown: "x" });
    const internal = (path: string) => site.handler(new Request(`http://127.0.0.1:8080${path}`));
    const feed = atom(await (await internal("/feeds/latest/atom")).text());
    expect(feed.entries?.[0]?.links?.[0]?.href).toBe(`https://public.example/${one.slug}`);
    expect(feed.links?.find((link) => link.rel === "self")?.href).toBe(
      "https://public.example/feeds/latest/atom",
    );
    expect(await (await internal("/robots.txt")).text()).toContain(
      "Sitemap: https://public.example/sitemap.xml",
    );
    expect(await (await internal("/sitemap.xml")).text()).toContain(
      `<loc>https://public.example/${one.slug}</loc>`,
    );
  });

  it("serves each feed at the self addresses it names", async () => {
    await site.call("POST", "/api/collections", { title: "Birds", slug: "birds" });
    for (const path of [
      "/feeds/atom",
      "/feeds/latest/atom",
      "/feeds/featured/atom",
      "/feeds/collections/birds/atom",
    ]) {
      const feed = atom((await get(path)).text);
      const self = feed.links?.find((link) => link.rel === "self")?.href as string;
      expect(self, path).toBe(`https://example.com${path}`);
      const json = jsonFeed((await get(path.replace(/atom$/, "json"))).text);
      expect(json.feed_url).toBe(`https://example.com${path.replace(/atom$/, "json")}`);
      for (const url of [self, json.feed_url])
        expect((await site.handler(new Request(url))).status, url).toBe(200);
    }
  });

  it("is callable in-process with an origin (a static build), and asks for one without", async () => {
    await post({ title: "In process", bodyMarkdown: "x" });
    const answer = await site.engine.feeds.latest({ format: "atom", origin: "https://static.example" });
    expect(answer.contentType).toBe("application/atom+xml; charset=utf-8");
    expect(atom(answer.body).entries?.[0]?.links?.[0]?.href).toMatch(/^https:\/\/static\.example\//);
    const missing = await site.engine.feeds.latest({ format: "atom" }).catch((e) => e);
    expect(missing.code).toBe("VALIDATION_ERROR");
    expect(missing.details.fieldErrors).toHaveProperty("origin");
    const bad = await site.engine.feeds
      .latest({ format: "atom", origin: "https://x.example/path" })
      .catch((e) => e);
    expect(bad.code).toBe("VALIDATION_ERROR");
  });
});

describe("sitemap.xml and robots.txt", () => {
  it("lists the public addresses of posts, collections and smart collections", async () => {
    const root = await post({ title: "Root", bodyMarkdown: "x" });
    const reply = await post({ replyToId: root.id, bodyMarkdown: "reply" });
    const hidden = await post({ title: "Hidden", visibility: "latest_hidden", bodyMarkdown: "x" });
    const secret = await post({ title: "Secret", visibility: "private", bodyMarkdown: "x" });
    const draft = await post({ title: "Draft", status: "draft", bodyMarkdown: "x" });
    expect(
      (await site.call("POST", "/api/collections", { title: "Birds & bees", slug: "birds" })).status,
    ).toBe(201);
    const smart = await site.call("POST", "/api/smart-collections", {
      title: "Notes",
      slug: "all-notes",
      selection: { format: "note" },
    });
    expect(smart.status).toBe(201);
    const res = await get("/sitemap.xml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(XMLValidator.validate(res.text)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "url" }).parse(
      res.text,
    );
    // The sitemap protocol: a urlset in its namespace, each url an absolute loc (< 2,048 chars) and a W3C lastmod.
    expect(parsed.urlset["@_xmlns"]).toBe("http://www.sitemaps.org/schemas/sitemap/0.9");
    const urls = parsed.urlset.url as { loc: string; lastmod?: string }[];
    for (const url of urls) {
      expect(new URL(url.loc).origin).toBe("https://example.com");
      expect(url.loc.length).toBeLessThan(2048);
      if (url.lastmod !== undefined) expect(url.lastmod).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
    const locs = new Set(urls.map((url) => url.loc));
    for (const path of ["/", "/birds", "/all-notes", `/${root.slug}`, `/${reply.slug}`, `/${hidden.slug}`]) {
      expect(locs, path).toContain(`https://example.com${path}`);
    }
    for (const slug of [secret.slug, draft.slug]) expect(locs).not.toContain(`https://example.com/${slug}`);
  });

  it("answers 404 for the sitemap under NOINDEX; robots.txt disallows everything then", async () => {
    const open = await get("/robots.txt");
    expect(open.status).toBe(200);
    expect(open.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(open.text).toBe("User-agent: *\nDisallow: /api/\n\nSitemap: https://example.com/sitemap.xml\n");
    await settings({ NOINDEX: "true" });
    expect((await get("/sitemap.xml")).status).toBe(404);
    const closed = await get("/robots.txt");
    expect(closed.status).toBe(200);
    expect(closed.text).toBe("User-agent: *\nDisallow: /\n");
    // robots.txt does not depend on the feeds switch.
    await settings({ NOINDEX: "false", RSS_FEEDS_ENABLED: "false" });
    expect((await get("/robots.txt")).text).toContain("Sitemap:");
  });

  it("writes the prefix into robots.txt and the sitemap", async () => {
    site = await createTestSite({ engineConfig: { now, settings: { sitePathPrefix: "/blog" } } });
    prefix = "/blog";
    const one = await post({ title: "x", bodyMarkdown: "x" });
    const robots = await get("/blog/robots.txt");
    expect(robots.text).toBe(
      "User-agent: *\nDisallow: /blog/api/\n\nSitemap: https://example.com/blog/sitemap.xml\n",
    );
    const sitemap = await get("/blog/sitemap.xml");
    expect(sitemap.text).toContain(`<loc>https://example.com/blog/${one.slug}</loc>`);
  });
});
