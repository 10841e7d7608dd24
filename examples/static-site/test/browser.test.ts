import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestEngine } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite } from "../src/build.js";
import { trackStorage } from "../src/media.js";
import { type SeededSite, seedSite } from "./seed.js";
import { serveFolder } from "./static-server.js";

/** Debian's chromium (installed by .ci/run), found on PATH. */
function findChromium(): string | null {
  for (const name of ["chromium", "chromium-browser"]) {
    const found = spawnSync("which", [name], { encoding: "utf8" });
    if (found.status === 0 && found.stdout.trim() !== "") return found.stdout.trim();
  }
  return null;
}

const executablePath = findChromium();
if (!executablePath) {
  if (process.env.CI) {
    throw new Error(
      "CI=true but no chromium on PATH: .ci/run installs it (apt-get install chromium); the browser test must run in CI",
    );
  }
  console.warn(
    "examples/static-site browser test skipped: no `chromium` on PATH (apt-get install chromium). In CI it runs.",
  );
}

describe.skipIf(!executablePath)("the built site in a real browser (chromium)", () => {
  let dir: string;
  let site: SeededSite;
  let origin: string;
  let stopServer: () => Promise<void>;
  let browser: Browser;
  let page: Page;
  let cleanupEngine: () => Promise<void>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "quire-static-browser-"));
    const storage = trackStorage(createFsStorage({ root: join(dir, "media"), publicBaseUrl: "/media" }));
    const test = await createTestEngine({ storage, settings: { pageSize: 2, siteName: "Browser Site" } });
    cleanupEngine = test.cleanup;
    site = await seedSite(test.engine, (seconds) => test.clock.advance(seconds));
    await buildSite(test.engine, { outDir: join(dir, "site"), media: storage });
    ({ origin, close: stopServer } = await serveFolder(join(dir, "site")));
    browser = await chromium.launch({ executablePath: executablePath as string, args: ["--no-sandbox"] });
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await stopServer?.();
    await cleanupEngine?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the home page, styled, and follows its pager", async () => {
    const response = await page.goto(`${origin}/`);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe("Browser Site");
    expect(await page.locator("article.root h2").allTextContents()).toEqual(site.rootTitles.slice(0, 2));
    // The stylesheet loaded and applies.
    expect(await page.evaluate(() => getComputedStyle(document.body).maxWidth)).toBe("672px");
    await page.click('a[rel="next"]');
    await page.waitForURL(`${origin}/page/2/`);
    expect(await page.locator("article.root h2").allTextContents()).toEqual(site.rootTitles.slice(2, 4));
    await page.click('a[rel="prev"]');
    await page.waitForURL(`${origin}/`);
  });

  it("follows a Thread's title to its page, where the image loads", async () => {
    await page.goto(`${origin}/page/2/`);
    await page.click(`article.root h2 a:text-is("${site.busy.title}")`);
    await page.waitForURL(`${origin}/${site.busy.slug}`);
    expect(await page.title()).toBe(`${site.busy.title} · Browser Site`);
    expect(await page.locator("article.reply").count()).toBe(8);
    const image = page.locator("article.root img");
    expect(await image.getAttribute("alt")).toBe("A grey rectangle");
    await image.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>("article.root img");
      return img?.complete === true;
    });
    expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(24);
  });

  it("follows a fold's gap to the reply it leaves out", async () => {
    await page.goto(`${origin}/page/2/`);
    await page.click("p.gap a");
    await page.waitForURL(`${origin}/${site.hiddenReply.slug}#${site.hiddenReply.id}`);
    expect(await page.locator('article[aria-current="page"]').getAttribute("id")).toBe(site.hiddenReply.id);
  });

  it("lands redirects where they point: a stored redirect and a moved post's slug", async () => {
    await page.goto(`${origin}${site.redirect.path}`);
    await page.waitForURL(`${origin}${site.redirect.to}`);
    expect(await page.title()).toBe(`${site.collection.title} · Browser Site`);
    expect(await page.locator("article.root h2").allTextContents()).toEqual([site.busy.title]);

    await page.goto(`${origin}/${site.moved.slug}`);
    await page.waitForURL(`${origin}${site.moved.path}`);
    expect(await page.title()).toBe(`${site.moved.title} · Browser Site`);
  });

  it("reaches the collection from the navigation, and answers unknown paths with the 404 page", async () => {
    await page.goto(`${origin}/`);
    await page.click(`header nav a:text-is("${site.collection.title}")`);
    await page.waitForURL(`${origin}/${site.collection.slug}`);
    expect(await page.locator("h1").textContent()).toBe(site.collection.title);
    const missing = await page.goto(`${origin}/no-such-page`);
    expect(missing?.status()).toBe(404);
    expect(await page.locator("h1").textContent()).toBe("Not found");
  });
});
