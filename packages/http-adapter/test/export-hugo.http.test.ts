import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsStorage } from "@quire/storage-fs";
import { describe, expect, it, onTestFinished } from "vitest";
import yauzl from "yauzl";
import { zipEntries } from "../../core/src/export/zip-writer.js";
import { parseBundlePage } from "../../core/src/github-sync/front-matter.js";
import { createTestSite, expectError } from "./helpers.js";

/** Every entry of a ZIP, read back with yauzl (an unzip library independent of the writer). */
function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(
      bytes,
      { lazyEntries: true, strictFileNames: true, validateEntrySizes: true },
      (err, zip) => {
        if (err || !zip) return reject(err);
        const files = new Map<string, Buffer>();
        zip.on("error", reject);
        zip.on("end", () => resolve(files));
        zip.on("entry", (entry: yauzl.Entry) => {
          zip.openReadStream(entry, (streamErr, stream) => {
            if (streamErr || !stream) return reject(streamErr);
            const parts: Buffer[] = [];
            stream.on("data", (part: Buffer) => parts.push(part));
            stream.on("error", reject);
            stream.on("end", () => {
              files.set(entry.fileName, Buffer.concat(parts));
              zip.readEntry();
            });
          });
        });
        zip.readEntry();
      },
    );
  });
}

/** Front matter (`key: <JSON>` lines between `---`) and body of a page. */
function pageOf(text: string): { front: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`not a page: ${text.slice(0, 80)}`);
  const front: Record<string, unknown> = {};
  for (const line of (match[1] ?? "").split("\n")) {
    const colon = line.indexOf(": ");
    front[line.slice(0, colon)] = JSON.parse(line.slice(colon + 2));
  }
  return { front, body: match[2] ?? "" };
}

function png(): Uint8Array {
  const bytes = new Uint8Array(5000);
  bytes.set([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 4, 0, 0, 0,
    3, 8, 6,
  ]);
  for (let i = 40; i < bytes.length; i++) bytes[i] = (i * 13) & 255;
  return bytes;
}

async function exportSite() {
  const root = mkdtempSync(join(tmpdir(), "quire-hugo-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const storage = createFsStorage({ root, publicBaseUrl: "/media" });
  const site = await createTestSite({ engineConfig: { storage } });
  const { engine } = site;
  const image = png();
  const media = await engine.media.upload({ file: image, filename: "Dot.png" });
  const post = await engine.posts.create({
    format: "note",
    title: "Hello Hugo",
    bodyMarkdown: "Hello *world*",
    attachments: [{ type: "media", mediaId: media.id, alt: "a dot" }],
  });
  const reply = await engine.posts.create({ format: "note", bodyMarkdown: "A reply", replyToId: post.id });
  const draft = await engine.posts.create({ format: "note", title: "Unfinished", status: "draft" });
  const collection = await engine.collections.create({
    slug: "reading",
    title: "Reading",
    description: "Books",
  });
  await engine.collections.addThread({ id: collection.id, threadId: post.id });
  await engine.collections.pinThread({ id: collection.id, threadId: post.id });
  await engine.navItems.create({ type: "collection", collectionId: collection.id });
  await engine.directoryItems.create({ type: "link", label: "Elsewhere", url: "https://example.org/" });
  await engine.customUrls.create({ path: "hello-alias", targetType: "post", targetId: post.id });
  await engine.customUrls.create({ path: "second-name", targetType: "post", targetId: post.id });
  await engine.settings.update({ SITE_NAME: "Hugo test" });
  return { site, post, reply, draft, image, media };
}

describe("POST /api/export/hugo", () => {
  it("streams a ZIP holding the Hugo site, read back with an unzip library", async () => {
    const { site, post, reply, draft, image, media } = await exportSite();
    const response = await site.handler(
      new Request("http://localhost/api/export/hugo", {
        method: "POST",
        headers: { authorization: "Bearer dev-token" },
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="quire-hugo-.*\.zip"$/,
    );
    expect(response.headers.get("content-length")).toBeNull();
    const files = await unzip(Buffer.from(await response.arrayBuffer()));

    expect(files.get("hugo.toml")?.toString()).toContain('title = "Hugo test"');
    expect(files.get("hugo.toml")?.toString()).toContain('collection = "collections"');
    const rootPage = pageOf(files.get(`content/threads/${post.slug}/_index.md`)?.toString() ?? "");
    expect(rootPage.body).toBe("Hello *world*\n");
    expect(rootPage.front).toMatchObject({
      title: "Hello Hugo",
      draft: false,
      slug: post.slug,
      collections: ["reading"],
    });
    // The post's one custom URL is its permalink: Hugo's `url`.
    expect(rootPage.front.url).toBe("/hello-alias");
    expect(rootPage.front.aliases).toEqual(["/second-name"]);
    expect(rootPage.front.params).toMatchObject({ id: post.id, threadReplyCount: 1, pins: ["reading"] });
    const resource = (rootPage.front.resources as { src: string; title: string }[])[0];
    expect(resource?.title).toBe("a dot");
    expect(files.get(`content/threads/${post.slug}/${resource?.src}`)).toEqual(Buffer.from(image));
    expect(resource?.src).toBe(`${media.id}-Dot.png`);

    const replyPage = pageOf(
      files.get(`content/threads/${post.slug}/${reply.slug}/index.md`)?.toString() ?? "",
    );
    expect(replyPage.body).toBe("A reply\n");
    expect(replyPage.front.params).toMatchObject({ replyToId: post.id, threadId: post.id });
    expect(pageOf(files.get(`content/threads/${draft.slug}/_index.md`)?.toString() ?? "").front.draft).toBe(
      true,
    );

    expect(pageOf(files.get("content/collections/reading/_index.md")?.toString() ?? "").front).toMatchObject({
      title: "Reading",
      description: "Books",
    });
    const data = (name: string) => JSON.parse(files.get(`data/${name}.json`)?.toString() ?? "null");
    expect(data("settings").SITE_NAME).toBe("Hugo test");
    expect(data("navigation")).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "collection" })]),
    );
    expect(data("directory")).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "link", label: "Elsewhere" })]),
    );
    expect(data("custom_urls")).toHaveLength(2);
    expect(data("custom_urls")).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: "/hello-alias", targetId: post.id })]),
    );
    expect(data("collections")[0].threads).toEqual([expect.objectContaining({ threadId: post.id })]);
    for (const name of files.keys()) expect(name).not.toMatch(/(^|\/)\.\.?(\/|$)|^\//);
  });

  it("leaves drafts out when asked, and needs the owner", async () => {
    const { site, post, draft } = await exportSite();
    const response = await site.handler(
      new Request("http://localhost/api/export/hugo?drafts=false", {
        method: "POST",
        headers: { authorization: "Bearer dev-token" },
      }),
    );
    const files = await unzip(Buffer.from(await response.arrayBuffer()));
    expect(files.has(`content/threads/${post.slug}/_index.md`)).toBe(true);
    expect(files.has(`content/threads/${draft.slug}/_index.md`)).toBe(false);
    expectError(
      await site.call("POST", "/api/export/hugo", undefined, { authorization: "" }),
      401,
      "UNAUTHORIZED",
    );
    expectError(await site.call("POST", "/api/export/hugo", { drafts: "maybe" }), 400, "VALIDATION_ERROR");
  });
});

describe("characters YAML refuses raw", () => {
  it("are escaped in front matter, and read back as written", async () => {
    // DEL, C1 controls (a Windows-1252 apostrophe decoded as Latin-1 is U+0092), U+2028, U+FFFE:
    // JSON allows them raw, YAML's c-printable set does not (Hugo stops the build).
    const odd = "Don\u0092t \u007f\u0085\u009f\u2028\ufeff\ufffe 😀";
    const site = await createTestSite();
    const post = await site.engine.posts.create({ format: "note", title: odd, bodyMarkdown: "Body" });
    const response = await site.handler(
      new Request("http://localhost/api/export/hugo", {
        method: "POST",
        headers: { authorization: "Bearer dev-token" },
      }),
    );
    const files = await unzip(Buffer.from(await response.arrayBuffer()));
    const text = files.get(`content/threads/${post.slug}/_index.md`)?.toString() ?? "";
    const front = text.slice(0, text.indexOf("\n---\n", 4));
    const unreadable = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/u;
    expect(unreadable.test(front)).toBe(false);
    expect(front).toContain(String.raw`"Don\u0092t \u007f\u0085\u009f\u2028\ufeff\ufffe 😀"`);
    expect(pageOf(text).front.title).toBe(odd);
    // The GitHub sync reads the page back as the export wrote it.
    expect(parseBundlePage(text)).toMatchObject({ front: { title: odd }, body: "Body\n" });
  });
});

describe("the ZIP writer", () => {
  it("writes ZIP64 records past 65,535 entries, read back whole by yauzl", async () => {
    async function* entries() {
      yield {
        name: "media/a.bin",
        bytes: (async function* () {
          yield new Uint8Array([1, 2, 3]);
          yield new Uint8Array(70_000).fill(9);
        })(),
      };
      // Stored entries (no deflate per entry) keep the test quick; the last one is deflated text.
      const encoder = new TextEncoder();
      for (let i = 0; i < 69_999; i++)
        yield {
          name: `pages/${i}.md`,
          bytes: (async function* () {
            yield encoder.encode(`page ${i}`);
          })(),
        };
      yield { name: "pages/69999.md", text: "page 69999" };
      yield { name: "pages/long.md", text: "a longer page, deflated ".repeat(200) };
    }
    const parts: Uint8Array[] = [];
    for await (const part of zipEntries(entries())) parts.push(part);
    const files = await unzip(Buffer.concat(parts));
    expect(files.size).toBe(70_002);
    expect(files.get("pages/long.md")?.toString()).toBe("a longer page, deflated ".repeat(200));
    expect(files.get("pages/69999.md")?.toString()).toBe("page 69999");
    expect(files.get("media/a.bin")?.length).toBe(70_003);
  });
});
