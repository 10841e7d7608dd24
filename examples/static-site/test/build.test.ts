import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEngine, type Database, type Engine } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildReport, buildSite } from "../src/build.js";
import { trackStorage } from "../src/media.js";
import { type SeededSite, seedSite } from "./seed.js";

describe("the static-site build", () => {
  let engine: Engine;
  let cleanup: () => Promise<void>;
  let reopen: () => Promise<Kysely<Database>>;
  let dir: string;
  let out: string;
  let site: SeededSite;
  let report: BuildReport;
  const read = (file: string) => readFileSync(join(out, file), "utf8");

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "quire-static-"));
    out = join(dir, "site");
    const storage = trackStorage(createFsStorage({ root: join(dir, "media"), publicBaseUrl: "/media" }));
    const test = await createTestEngine({ storage, settings: { pageSize: 2, siteName: "Test & Site" } });
    ({ engine, cleanup, reopen } = test);
    site = await seedSite(engine, (seconds) => test.clock.advance(seconds));
    report = await buildSite(engine, { outDir: out, media: storage, origin: "https://example.com" });
  });
  afterAll(async () => {
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reports what it wrote", () => {
    // Feeds: main, latest, featured and the collection's, in three formats each.
    expect(report).toMatchObject({ threads: 4, posts: 12, collections: 1, mediaFiles: 1, feeds: 12 });
    // The post's slug (it lives at its custom URL) and the stored redirect.
    expect(report.redirects).toBe(2);
  });

  it("writes the home list PAGE_SIZE Threads a page, newest activity first, with folds", () => {
    const home = read("index.html");
    expect(home).toContain("<title>Test &amp; Site</title>");
    const titles = (html: string) =>
      [...html.matchAll(/<article class="post root"[^>]*>\s*<h2><a [^>]*>([^<]*)</g)].map((m) => m[1]);
    expect(titles(home)).toEqual(site.rootTitles.slice(0, 2));
    expect(home).toContain('<a rel="next" href="/page/2/">');
    const second = read("page/2/index.html");
    expect(titles(second)).toEqual(site.rootTitles.slice(2, 4));
    expect(second).toContain('<a rel="prev" href="/">');
    expect(second).not.toContain('rel="next"');
    // The busy Thread's fold links to the first reply it leaves out.
    expect(second).toMatch(/<p class="gap"><a href="\/[^"#]+#[^"]+">\d+ more replies<\/a>/);
    expect(second).toContain(`href="/${site.hiddenReply.slug}#${site.hiddenReply.id}"`);
  });

  it("writes every post's page at its permalink, the whole Thread on each", () => {
    const root = read(`${site.busy.slug}/index.html`);
    expect(root).toContain(`<title>${site.busy.title} · Test &amp; Site</title>`);
    expect(root.match(/<article class="post reply/g)).toHaveLength(8);
    expect(root).toContain('<img src="/media/');
    const reply = read(`${site.hiddenReply.slug}/index.html`);
    expect(reply).toContain(`id="${site.hiddenReply.id}" aria-current="page"`);
    expect(reply).toContain(`<link rel="canonical" href="/${site.hiddenReply.slug}">`);
    // The moved post lives at its custom URL; its slug is a redirect page.
    expect(read("2026/moved/index.html")).toContain(`<title>${site.moved.title} · Test &amp; Site</title>`);
    expect(read(`${site.moved.slug}/index.html`)).toContain(
      '<meta http-equiv="refresh" content="0; url=/2026/moved">',
    );
  });

  it("writes the collection page and redirect pages, and lists redirects with their status", () => {
    const collection = read("reading/index.html");
    expect(collection).toContain(`<h1>${site.collection.title}</h1>`);
    expect(collection).toContain(site.busy.title);
    expect(collection).not.toContain("Quiet one");
    const redirect = read("old-home/index.html");
    expect(redirect).toContain('<link rel="canonical" href="/reading">');
    expect(redirect).toContain('<meta http-equiv="refresh" content="0; url=/reading">');
    expect(read("_redirects").trim().split("\n").sort()).toEqual(
      ["/old-home /reading 301", `/${site.moved.slug} /2026/moved 301`].sort(),
    );
    // The navigation links the collection on every page.
    expect(read("index.html")).toContain('<li><a href="/reading">Reading list</a></li>');
  });

  it("copies the media files from storage to their addresses", () => {
    expect(site.image.url.startsWith("/media/")).toBe(true);
    const copied = readFileSync(join(out, decodeURIComponent(site.image.url)));
    expect(Buffer.compare(copied, Buffer.from(site.image.bytes))).toBe(0);
    expect(existsSync(join(out, "assets", "site.css"))).toBe(true);
    expect(read("404.html")).toContain("<h1>Not found</h1>");
  });

  it("writes the engine's feeds, sitemap and robots.txt at their addresses, with absolute links", () => {
    const rss = read("feeds/rss");
    expect(rss).toContain("<rss");
    expect(rss).toContain(`<link>https://example.com/${site.busy.slug}</link>`);
    expect(rss).toContain("<link>https://example.com/2026/moved</link>");
    expect(read("rss")).toBe(rss);
    expect(read("feeds/atom")).toContain('<feed xmlns="http://www.w3.org/2005/Atom"');
    const json = JSON.parse(read("feeds/latest/json")) as { items: { url: string }[] };
    expect(json.items.map((item) => item.url)).toContain(`https://example.com/${site.busy.slug}`);
    expect(read("feeds/collections/reading/rss")).toContain(site.busy.title);
    expect(read("feeds/collections/reading/rss")).not.toContain("Quiet one");
    expect(read("sitemap.xml")).toContain("<loc>https://example.com/2026/moved</loc>");
    expect(read("robots.txt")).toContain("Sitemap: https://example.com/sitemap.xml");
    expect(read("_headers")).toContain("/feeds/atom\n  Content-Type: application/atom+xml; charset=utf-8");
    expect(read("index.html")).toContain(
      '<link rel="alternate" type="application/rss+xml" title="Test &amp; Site" href="/feeds/rss">',
    );
  });

  it("writes no feeds or sitemap without an origin, and none with feeds switched off", async () => {
    const noOrigin = join(dir, "no-origin");
    const withoutOrigin = await buildSite(engine, { outDir: noOrigin });
    expect(withoutOrigin.feeds).toBe(0);
    expect(existsSync(join(noOrigin, "feeds"))).toBe(false);
    expect(existsSync(join(noOrigin, "sitemap.xml"))).toBe(false);
    expect(readFileSync(join(noOrigin, "robots.txt"), "utf8")).not.toContain("Sitemap:");
    expect(readFileSync(join(noOrigin, "index.html"), "utf8")).not.toContain('rel="alternate"');

    await engine.settings.update({ RSS_FEEDS_ENABLED: "false" });
    const off = join(dir, "feeds-off");
    try {
      expect((await buildSite(engine, { outDir: off, origin: "https://example.com" })).feeds).toBe(0);
      expect(existsSync(join(off, "feeds"))).toBe(false);
      expect(existsSync(join(off, "rss"))).toBe(false);
      expect(existsSync(join(off, "sitemap.xml"))).toBe(true);
    } finally {
      await engine.settings.delete({ key: "RSS_FEEDS_ENABLED" });
    }
  });

  it("writes a smart collection's page in its layout, linked from the navigation", async () => {
    const smart = await engine.smartCollections.create({
      slug: "links",
      title: "Links",
      selection: { format: "link" },
      layout: "grid",
    });
    try {
      const withSmart = join(dir, "with-smart");
      await buildSite(engine, { outDir: withSmart });
      const page = readFileSync(join(withSmart, "links", "index.html"), "utf8");
      expect(page).toContain("<h1>Links</h1>");
      expect(page).toContain('<div class="threads grid">');
      expect(page).toContain("A link worth following");
      expect(page).not.toContain("Quiet one");
      expect(readFileSync(join(withSmart, "index.html"), "utf8")).toContain(
        '<li><a href="/links">Links</a></li>',
      );
    } finally {
      await engine.smartCollections.delete({ id: smart.id });
    }
  });

  it("builds a site below SITE_PATH_PREFIX: links carry the prefix, files are written without it", async () => {
    const storage = trackStorage(createFsStorage({ root: join(dir, "media"), publicBaseUrl: "/blog/media" }));
    const db = await reopen();
    const prefixed = createEngine({ db, storage, settings: { sitePathPrefix: "/blog", pageSize: 2 } });
    try {
      const blog = join(dir, "blog");
      await buildSite(prefixed, { outDir: blog, media: storage });
      const home = readFileSync(join(blog, "index.html"), "utf8");
      expect(home).toContain('<a rel="next" href="/blog/page/2/">');
      expect(home).toContain('<link rel="stylesheet" href="/blog/assets/site.css">');
      const thread = readFileSync(join(blog, site.busy.slug, "index.html"), "utf8");
      expect(thread).toContain('<img src="/blog/media/');
      expect(existsSync(join(blog, "2026", "moved", "index.html"))).toBe(true);
      expect(readFileSync(join(blog, "old-home", "index.html"), "utf8")).toContain(
        'content="0; url=/blog/reading"',
      );
      expect(readFileSync(join(blog, "_redirects"), "utf8")).toContain("/blog/old-home /blog/reading 301");
      const copied = join(blog, decodeURIComponent(site.image.url.replace(/^\/media\//, "media/")));
      expect(Buffer.compare(readFileSync(copied), Buffer.from(site.image.bytes))).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it("rebuilds its own output in place, dropping what is gone, and refuses any other folder", async () => {
    await engine.customUrls.delete({
      id: (await engine.customUrls.list({})).customUrls.find((url) => url.path === site.redirect.path)
        ?.id as string,
    });
    await buildSite(engine, { outDir: out });
    expect(existsSync(join(out, "old-home"))).toBe(false);
    const foreign = join(dir, "foreign");
    mkdirSync(foreign);
    writeFileSync(join(foreign, "keep.txt"), "mine");
    await expect(buildSite(engine, { outDir: foreign })).rejects.toThrow(/not a previous build's output/);
    expect(readFileSync(join(foreign, "keep.txt"), "utf8")).toBe("mine");
  });
});
