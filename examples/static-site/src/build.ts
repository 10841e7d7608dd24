import { createWriteStream, existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { type Engine, isEngineError, publicCaller } from "@quire/core";
import type { MediaSource } from "./media.js";
import {
  escapeHtml,
  type Post,
  page,
  pagerHtml,
  postHtml,
  postLabel,
  redirectPage,
  type SiteFrame,
  type Thread,
  threadSummaryHtml,
} from "./templates.js";

/** Options of {@link buildSite}. */
export interface BuildOptions {
  /**
   * The folder to write. It must be missing, empty, or a previous build's output (it holds the
   * marker file `.quire-static-site`): its contents are replaced.
   */
  outDir: string;
  /** Where to read media files from (`trackStorage`); without it, pages link to the store's addresses and nothing is copied. */
  media?: MediaSource | undefined;
  /**
   * The origin the site will be served from (`https://example.com`). Feeds and the sitemap hold
   * absolute links, so they are written only when it is given; robots.txt is written either way.
   */
  origin?: string | undefined;
}

/** What a build wrote. */
export interface BuildReport {
  /** HTML pages, redirect pages and the 404 page included. */
  pages: number;
  threads: number;
  posts: number;
  collections: number;
  redirects: number;
  mediaFiles: number;
  feeds: number;
  /** Milliseconds spent in each part of the build, in the order they ran. */
  phases: Record<string, number>;
}

/** The marker that makes a folder a build's output, so a rebuild may empty it. */
export const outputMarker = ".quire-static-site";

const stylesheetFile = new URL("./site.css", import.meta.url);

/** Pages read from the engine per list call (its largest `limit`). */
const readBatch = 100;

/**
 * Builds the whole public site of `engine` into `options.outDir` as static files: the home Thread
 * list with folds, paginated by the site's `PAGE_SIZE`; every readable post's page at its
 * permalink; collection and smart collection pages; a redirect page at every other address the
 * engine answers with a redirect (custom URL redirects, a post's slug when it lives at a custom
 * URL, a collection's older address); media files copied from storage; a 404 page. Every read is
 * an engine call as an anonymous reader (`publicCaller`), except the collections directory, which
 * only the owner can list. See docs/static-site.md.
 */
export async function buildSite(engine: Engine, options: BuildOptions): Promise<BuildReport> {
  const settings = await engine.siteSettings();
  const prefix = normalizePrefix(settings.sitePathPrefix);
  const out = new Output(options.outDir, prefix);
  await out.prepare();

  const report: BuildReport = {
    pages: 0,
    threads: 0,
    posts: 0,
    collections: 0,
    redirects: 0,
    mediaFiles: 0,
    feeds: 0,
    phases: {},
  };
  let phaseStart = performance.now();
  const endPhase = (name: string) => {
    const now = performance.now();
    report.phases[name] = Math.round(now - phaseStart);
    phaseStart = now;
  };
  const mediaUrls = new Set<string>();
  const pageSize = Math.min(Math.max(settings.pageSize, 1), readBatch);

  // The collections directory: the navigation, and where each collection lives.
  const directory = await engine.collections.list({});
  const collectionPaths = new Map<string, string>();
  for (const collection of directory.collections) {
    const at = await engine.resolve(`${prefix}/${collection.slug}`);
    if (at.kind === "collection") collectionPaths.set(collection.id, at.canonicalPath);
    else if (at.kind === "redirect" && at.reason === "canonical")
      collectionPaths.set(collection.id, at.location);
  }
  const smartPaths = new Map(
    directory.smartCollections.map((smart) => [smart.id, `${prefix}/${smart.slug}`]),
  );
  const nav: SiteFrame["nav"] = [];
  for (const item of directory.directoryItems) {
    if (item.type === "collection" && item.collectionId) {
      const collection = directory.collections.find((c) => c.id === item.collectionId);
      const href = collectionPaths.get(item.collectionId);
      if (collection && href) nav.push({ label: item.label ?? collection.title, href });
    } else if (item.type === "smart_collection" && item.smartCollectionId) {
      const smart = directory.smartCollections.find((s) => s.id === item.smartCollectionId);
      const href = smartPaths.get(item.smartCollectionId);
      if (smart && href) nav.push({ label: item.label ?? smart.title, href });
    } else if (item.type === "link" && item.url) {
      nav.push({ label: item.label ?? item.url, href: item.url });
    }
  }

  endPhase("directory");
  const home = prefix === "" ? "/" : `${prefix}/`;
  const frame: SiteFrame = {
    settings,
    home,
    stylesheet: `${prefix}/assets/site.css`,
    nav,
    feeds: [],
  };

  // Feeds, the sitemap and robots.txt: the engine's documents, written at their addresses.
  const origin = options.origin;
  const document = async (path: string, read: () => Promise<{ body: string; contentType: string }>) => {
    try {
      const answer = await read();
      await out.file(out.fileOf(path), answer.body);
      headers.push(`${path}\n  Content-Type: ${answer.contentType}`);
      return true;
    } catch (err) {
      // Feeds switched off (RSS_FEEDS_ENABLED=false, the public surface closed) or no sitemap (NOINDEX).
      if (isEngineError(err) && err.code === "NOT_FOUND") return false;
      throw err;
    }
  };
  const headers: string[] = [];
  const formats = ["rss", "atom", "json"] as const;
  if (origin) {
    for (const format of formats) {
      const written = await document(`${prefix}/feeds/${format}`, () =>
        engine.feeds.main({ format, origin }, publicCaller),
      );
      if (!written) break;
      await document(`${prefix}/feeds/latest/${format}`, () =>
        engine.feeds.latest({ format, origin }, publicCaller),
      );
      await document(`${prefix}/feeds/featured/${format}`, () =>
        engine.feeds.featured({ format, origin }, publicCaller),
      );
      report.feeds += 3;
      for (const collection of directory.collections) {
        await document(`${prefix}/feeds/collections/${encodeURIComponent(collection.slug)}/${format}`, () =>
          engine.feeds.collection({ slug: collection.slug, format, origin }, publicCaller),
        );
        report.feeds += 1;
      }
    }
    if (report.feeds > 0) {
      await document(`${prefix}/rss`, () => engine.feeds.main({ format: "rss", origin }, publicCaller));
      frame.feeds.push(
        { title: settings.siteName, href: `${prefix}/feeds/rss`, type: "application/rss+xml" },
        { title: settings.siteName, href: `${prefix}/feeds/atom`, type: "application/atom+xml" },
      );
    }
    await document(`${prefix}/sitemap.xml`, () => engine.feeds.sitemap({ origin }, publicCaller));
  }
  // robots.txt counts only at the root of an origin: it is written at the output's root.
  await document("/robots.txt", () => engine.feeds.robots({ origin }, publicCaller));
  endPhase("feeds");
  const writePage = async (path: string, html: string) => {
    await out.page(path, html);
    report.pages += 1;
  };
  const noteMedia = (threads: Thread[]) => {
    for (const thread of threads) {
      const fold = thread.fold;
      const posts = fold ? [thread.root, ...fold.leading, ...fold.trailing] : [thread.root];
      for (const post of posts) noteMediaOf(post, mediaUrls);
    }
  };

  // A paginated Thread list: page 1 at `first`, page n at `${rest}/page/n/`.
  const writeList = async (
    read: (cursor: string | undefined) => Promise<{ threads: Thread[]; nextCursor: string | null }>,
    where: {
      first: string;
      rest: string;
      title: string;
      intro: string;
      className?: () => string | undefined;
    },
  ) => {
    let cursor: string | undefined;
    for (let n = 1; ; n++) {
      const { threads, nextCursor } = await read(cursor);
      noteMedia(threads);
      const path = n === 1 ? where.first : `${where.rest}/page/${n}/`;
      const previous = n === 1 ? null : n === 2 ? where.first : `${where.rest}/page/${n - 1}/`;
      const next = nextCursor ? `${where.rest}/page/${n + 1}/` : null;
      const className = where.className?.();
      const list =
        threads.length > 0
          ? `<div class="threads${className ? ` ${className}` : ""}">${threads.map(threadSummaryHtml).join("\n")}</div>`
          : '<p class="empty">Nothing published here yet.</p>';
      const title = n === 1 ? where.title : `${where.title} (page ${n})`;
      await writePage(
        path,
        page(frame, { title, canonical: path, body: `${where.intro}${list}\n${pagerHtml(previous, next)}` }),
      );
      if (!nextCursor) return;
      cursor = nextCursor;
    }
  };

  // The home page: public Threads with their folds, pinned first (the engine's unfiltered list).
  await writeList(
    (cursor) => engine.publicThreads.list({ fold: true, limit: pageSize, cursor }, publicCaller),
    {
      first: home,
      rest: prefix,
      title: settings.siteName,
      intro: settings.siteDescription ? `<p class="intro">${escapeHtml(settings.siteDescription)}</p>` : "",
    },
  );

  endPhase("home");

  // Collection pages, in the collection's own order (the engine's default for one collection).
  for (const collection of directory.collections) {
    const first = collectionPaths.get(collection.id);
    if (!first) continue;
    await writeList(
      (cursor) =>
        engine.publicThreads.list(
          { collection: [collection.slug], fold: true, limit: pageSize, cursor },
          publicCaller,
        ),
      {
        first,
        rest: `${prefix}/collections/${collection.slug}`,
        title: collection.title,
        intro: `<h1>${escapeHtml(collection.title)}</h1>${collection.description ? `<p class="intro">${escapeHtml(collection.description)}</p>` : ""}`,
      },
    );
    report.collections += 1;
  }
  for (const smart of directory.smartCollections) {
    let layout = "list";
    await writeList(
      async (cursor) => {
        const answer = await engine.publicSmartCollections.listThreads(
          { slug: smart.slug, fold: true, limit: pageSize, cursor },
          publicCaller,
        );
        layout = answer.smartCollection.layout;
        return answer;
      },
      {
        first: `${prefix}/${smart.slug}`,
        rest: `${prefix}/collections/${smart.slug}`,
        title: smart.title,
        intro: `<h1>${escapeHtml(smart.title)}</h1>${smart.description ? `<p class="intro">${escapeHtml(smart.description)}</p>` : ""}`,
        className: () => (layout === "grid" ? "grid" : undefined),
      },
    );
    report.collections += 1;
  }

  endPhase("collections");

  // Every readable Thread (public and latest-hidden), each post at its permalink.
  const movedSlugs: string[] = [];
  let cursor: string | undefined;
  do {
    const batch = await engine.publicThreads.list(
      { visibility: "any", sort: "published", limit: readBatch, cursor },
      publicCaller,
    );
    for (const thread of batch.threads) {
      const posts = thread.postCount > 1 ? await threadPosts(engine, thread.root.slug) : [thread.root];
      const rootLabel = postLabel(thread.root);
      for (const post of posts) {
        noteMediaOf(post, mediaUrls);
        if (post.permalink !== `${prefix}/${post.slug}`) movedSlugs.push(`${prefix}/${post.slug}`);
      }
      // Each post's article is rendered once; a reply's own page swaps in its marked version.
      const articles = posts.map((each) =>
        postHtml(each, { linkTitle: each.id !== thread.root.id, reply: each.id !== thread.root.id }),
      );
      for (const [index, post] of posts.entries()) {
        const isRoot = index === 0;
        const shown = isRoot
          ? articles
          : articles.map((article, at) =>
              at === index ? postHtml(post, { linkTitle: true, reply: true, current: true }) : article,
            );
        const title = isRoot
          ? rootLabel
          : postLabel(post) === "Untitled"
            ? `Reply to ${rootLabel}`
            : postLabel(post);
        const body = `<section class="thread full">\n${shown.join("\n")}\n</section>`;
        const description = typeof post.summary === "string" && post.summary ? post.summary : undefined;
        await writePage(post.permalink, page(frame, { title, canonical: post.permalink, body, description }));
        report.posts += 1;
      }
      report.threads += 1;
    }
    cursor = batch.nextCursor ?? undefined;
  } while (cursor);

  endPhase("threads");

  // Every other address: ask the engine what is there and write a redirect page where it redirects.
  const candidates = new Set<string>(movedSlugs);
  for (const collection of directory.collections) candidates.add(`${prefix}/${collection.slug}`);
  let urlCursor: string | undefined;
  do {
    const batch = await engine.customUrls.list({ limit: readBatch, cursor: urlCursor });
    for (const customUrl of batch.customUrls) candidates.add(`${prefix}${customUrl.path}`);
    urlCursor = batch.nextCursor ?? undefined;
  } while (urlCursor);
  const redirects: string[] = [];
  for (const path of [...candidates].sort()) {
    if (out.has(path)) continue;
    const at = await engine.resolve(path);
    if (at.kind !== "redirect") continue;
    await writePage(path, redirectPage(at.location));
    redirects.push(`${at.path} ${at.location} ${at.status}`);
    report.redirects += 1;
  }
  // The same redirects with their status, for hosts that read a `_redirects` file (no address
  // can start with `_`, so the file never shadows a page).
  await out.file("_redirects", redirects.length > 0 ? `${redirects.join("\n")}\n` : "");

  endPhase("redirects");

  await out.file(
    "404.html",
    page(frame, {
      title: "Not found",
      canonical: `${prefix}/404.html`,
      body: `<h1>Not found</h1><p>Nothing lives at this address. <a href="${escapeHtml(home)}">Home</a></p>`,
    }),
  );
  report.pages += 1;
  await out.file(join("assets", "site.css"), await readFile(stylesheetFile, "utf8"));
  // Content types for the documents without a file extension, for hosts that read a `_headers` file.
  await out.file("_headers", headers.length > 0 ? `${headers.join("\n")}\n` : "");

  // Media files: the bytes behind every site-relative address a page links to.
  if (options.media) {
    for (const url of [...mediaUrls].sort()) {
      if (!url.startsWith("/")) continue; // served from elsewhere (a CDN, a bucket)
      const key = options.media.keyOf(url);
      if (key === undefined) continue;
      const media = options.media;
      await out.stream(out.fileOf(url), async () => {
        const read = await media.get(key);
        if (!read) throw new Error(`The media file ${url} (key ${key}) is missing from storage`);
        return read.body;
      });
      report.mediaFiles += 1;
    }
  }
  await out.drain();
  endPhase("media and last writes");
  return report;
}

/** Every published post of a Thread in Thread order, as a reader sees them. */
async function threadPosts(engine: Engine, slug: string): Promise<Post[]> {
  const posts: Post[] = [];
  let cursor: string | undefined;
  do {
    const batch = await engine.publicThreads.listPosts({ slug, limit: readBatch, cursor }, publicCaller);
    posts.push(...batch.posts);
    cursor = batch.nextCursor ?? undefined;
  } while (cursor);
  return posts;
}

function noteMediaOf(post: Post, urls: Set<string>): void {
  for (const attachment of post.attachments) {
    if (attachment.url) urls.add(attachment.url);
    if (attachment.type === "media") {
      if (attachment.previewUrl) urls.add(attachment.previewUrl);
      if (attachment.posterUrl) urls.add(attachment.posterUrl);
    }
  }
}

/** `SITE_PATH_PREFIX` as "" or `/blog`. */
function normalizePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/\/+$/, "");
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/** The output folder: site paths to files, each written once. */
class Output {
  private readonly written = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly prefix: string,
  ) {}

  async prepare(): Promise<void> {
    if (existsSync(this.root)) {
      const entries = await readdir(this.root);
      if (entries.length > 0 && !entries.includes(outputMarker)) {
        throw new Error(
          `${this.root} is not empty and is not a previous build's output (no ${outputMarker}); refusing to replace it`,
        );
      }
      await rm(this.root, { recursive: true, force: true });
    }
    await mkdir(this.root, { recursive: true });
    await writeFile(
      join(this.root, outputMarker),
      "Written by the Quire static-site build; rebuilt in place.\n",
    );
  }

  has(path: string): boolean {
    return this.written.has(this.fileOf(path, true));
  }

  /** The file (relative to the root) a site path is written to; `asPage`: `…/index.html`. */
  fileOf(path: string, asPage = false): string {
    let rest = path.replace(/[?#].*$/, "");
    if (this.prefix !== "" && (rest === this.prefix || rest.startsWith(`${this.prefix}/`))) {
      rest = rest.slice(this.prefix.length);
    }
    const segments = rest
      .split("/")
      .filter((segment) => segment !== "")
      .map((segment) => decodeURIComponent(segment));
    for (const segment of segments) {
      if (segment === "." || segment === ".." || segment.includes(sep) || segment.includes("/")) {
        throw new Error(`Refusing to write outside the output folder: ${path}`);
      }
    }
    if (asPage) segments.push("index.html");
    return segments.join("/");
  }

  async page(path: string, html: string): Promise<void> {
    const file = this.fileOf(path, true);
    if (this.written.has(file)) throw new Error(`Two pages at one address: ${path}`);
    await this.file(file, html);
  }

  /** Writes a file; up to {@link maxWrites} writes run at once, so this may return before it is done ({@link drain}). */
  async file(relative: string, content: string): Promise<void> {
    const target = this.claim(relative);
    await this.queue(async () => {
      await this.folder(dirname(target));
      await writeFile(target, content);
    });
  }

  /** Copies a stream to a file, queued like {@link file}. */
  async stream(relative: string, read: () => Promise<ReadableStream<Uint8Array>>): Promise<void> {
    const target = this.claim(relative);
    await this.queue(async () => {
      const body = await read();
      await this.folder(dirname(target));
      await pipeline(Readable.fromWeb(body as NodeReadableStream<Uint8Array>), createWriteStream(target));
    });
  }

  /** Waits for every queued write; throws the first failure. */
  async drain(): Promise<void> {
    await Promise.all(this.inFlight);
    const failure = this.failures[0];
    if (failure !== undefined) throw failure;
  }

  private readonly folders = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly failures: unknown[] = [];
  private static readonly maxWrites = 16;

  private async folder(path: string): Promise<void> {
    if (this.folders.has(path)) return;
    await mkdir(path, { recursive: true });
    this.folders.add(path);
  }

  private async queue(write: () => Promise<void>): Promise<void> {
    if (this.failures.length > 0) throw this.failures[0];
    const tracked: Promise<void> = write().then(
      () => {
        this.inFlight.delete(tracked);
      },
      (err: unknown) => {
        this.inFlight.delete(tracked);
        this.failures.push(err);
      },
    );
    this.inFlight.add(tracked);
    if (this.inFlight.size >= Output.maxWrites) await Promise.race(this.inFlight);
  }

  private claim(relative: string): string {
    this.written.add(relative.split(sep).join("/"));
    return join(this.root, relative);
  }
}
