import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildReport, buildSite } from "../src/build.js";
import { trackStorage } from "../src/media.js";
import { type SeededSite, seedSite } from "./seed.js";

describe("the static-site build", () => {
  let engine: Engine;
  let cleanup: () => Promise<void>;
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
    ({ engine, cleanup } = test);
    site = await seedSite(engine, (seconds) => test.clock.advance(seconds));
    report = await buildSite(engine, { outDir: out, media: storage });
  });
  afterAll(async () => {
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reports what it wrote", () => {
    expect(report).toMatchObject({ threads: 4, posts: 12, collections: 1, mediaFiles: 1 });
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
