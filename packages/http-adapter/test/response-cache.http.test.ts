import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEngine, type Engine } from "@quire/core";
import { createTestEngine, testDatabaseKind } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import { sql } from "kysely";
import { describe, expect, it, onTestFinished } from "vitest";
import { createHandler, type HandlerOptions } from "../src/index.js";
import type { TestResponse } from "./helpers.js";
import { pngFile } from "./uploads-fixtures.js";

/**
 * The response cache is proven with two engines, each with its own handler and its own database
 * handle, on one database (one SQLite file, one PostgreSQL database): every write goes through A,
 * every read through B, as two app servers (or processes) behind one load balancer would.
 */
interface Pair {
  writer: Engine;
  reader: Engine;
  /** Owner calls through A's handler. */
  write: (method: string, path: string, body?: unknown) => Promise<TestResponse>;
  /** Anonymous reads through B's handler. */
  read: (path: string, headers?: Record<string, string>) => Promise<Response>;
}

async function pair(options: HandlerOptions = {}, files = false): Promise<Pair> {
  const root = files ? await mkdtemp(join(tmpdir(), "quire-cache-")) : undefined;
  const storage = root ? createFsStorage({ root, publicBaseUrl: "/media" }) : undefined;
  const { engine: writer, clock, reopen, cleanup } = await createTestEngine({ storage });
  const db = await reopen();
  const reader = createEngine({ db, clock, storage });
  onTestFinished(async () => {
    await db.destroy();
    await cleanup();
    if (root) await rm(root, { recursive: true, force: true });
  });
  const a = createHandler(writer, { devApiToken: "dev-token", clientAddress: () => "127.0.0.1" });
  const b = createHandler(reader, options);
  return {
    writer,
    reader,
    write: async (method, path, body) => {
      const form = body instanceof FormData;
      const response = await a(
        new Request(`http://localhost${path}`, {
          method,
          headers: form
            ? { authorization: "Bearer dev-token" }
            : { authorization: "Bearer dev-token", "content-type": "application/json" },
          ...(body === undefined ? {} : { body: form ? body : JSON.stringify(body) }),
        }),
      );
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return {
        status: response.status,
        headers: response.headers,
        body: text === "" ? null : JSON.parse(text),
      };
    },
    read: (path, headers = {}) => b(new Request(`http://localhost${path}`, { headers })),
  };
}

const threadList = "/api/public/threads?include=fold";

async function post(site: Pair, body: Record<string, unknown>) {
  return (await site.write("POST", "/api/posts", { format: "note", bodyMarkdown: "Text", ...body })).body;
}

async function titles(response: Response): Promise<string[]> {
  expect(response.status).toBe(200);
  const body = await response.json();
  return body.threads.map((thread: { root: { title: string | null } }) => thread.root.title);
}

/** Removes every trigger that moves the site version: what a missing bump would look like. */
async function dropSiteVersionTriggers(engine: Engine): Promise<void> {
  const db = engine.context.db;
  if (testDatabaseKind() === "postgres") {
    const rows = await sql<{ table: string; name: string }>`select c.relname as table, t.tgname as name
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
      where p.proname = 'bump_site_version' and c.relnamespace = current_schema()::regnamespace`.execute(db);
    for (const row of rows.rows)
      await sql`drop trigger ${sql.id(row.name)} on ${sql.id(row.table)}`.execute(db);
  } else {
    const rows = await sql<{ name: string }>`select name from sqlite_master
      where type = 'trigger' and name like '%_site_version'`.execute(db);
    for (const row of rows.rows) await sql`drop trigger ${sql.id(row.name)}`.execute(db);
  }
}

describe("response cache: a write through one engine is seen on the next read through another", () => {
  it("the public Thread list with include=fold: a hit until a write, then the new answer", async () => {
    const site = await pair();
    await post(site, { title: "First" });
    const first = await site.read(threadList);
    expect(first.headers.get("quire-cache")).toBe("miss");
    expect(await titles(first)).toEqual(["First"]);
    const again = await site.read(threadList);
    expect(again.headers.get("quire-cache")).toBe("hit");
    expect(await titles(again)).toEqual(["First"]);
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));

    await post(site, { title: "Second" });
    const after = await site.read(threadList);
    expect(after.headers.get("quire-cache")).toBe("miss");
    expect(await titles(after)).toEqual(["Second", "First"]);
  });

  it("without the triggers that move the site version, the same read is served stale (what the tests above catch)", async () => {
    const site = await pair();
    await post(site, { title: "First" });
    expect(await titles(await site.read(threadList))).toEqual(["First"]);
    await dropSiteVersionTriggers(site.writer);
    await post(site, { title: "Second" });
    const stale = await site.read(threadList);
    expect(stale.headers.get("quire-cache")).toBe("hit");
    expect(await titles(stale)).toEqual(["First"]);
  });

  it("a public post, its Thread and its replies follow an edit and a reply", async () => {
    const site = await pair();
    const root = await post(site, { title: "Hello", slug: "hello" });
    const read = async (path: string) => {
      const response = await site.read(path);
      expect(response.status).toBe(200);
      return response.json();
    };
    expect((await read("/api/public/posts/hello")).title).toBe("Hello");
    expect((await read("/api/public/threads/hello")).root.title).toBe("Hello");
    expect((await read("/api/public/threads/hello/posts")).posts).toHaveLength(1);
    await site.write("PUT", `/api/posts/${root.id}`, { title: "Hello again" });
    await post(site, { replyToId: root.id, bodyMarkdown: "A reply" });
    expect((await read("/api/public/posts/hello")).title).toBe("Hello again");
    expect((await read("/api/public/threads/hello")).root.title).toBe("Hello again");
    expect((await read("/api/public/threads/hello/posts")).posts).toHaveLength(2);
    // Deleted: 404 at once, not the kept answer.
    await site.write("DELETE", `/api/posts/${root.id}`);
    expect((await site.read("/api/public/posts/hello")).status).toBe(404);
  });

  it("a post's file metadata (its media row) follows an edit", async () => {
    const site = await pair({}, true);
    const form = new FormData();
    form.append("file", new Blob([pngFile(4, 3)], { type: "image/png" }), "dot.png");
    const media = (await site.write("POST", "/api/upload", form)).body;
    await post(site, {
      slug: "with-file",
      attachments: [{ type: "media", mediaId: media.id, alt: "A dot" }],
    });
    const alt = async () =>
      (await (await site.read("/api/public/posts/with-file")).json()).attachments[0].alt;
    expect(await alt()).toBe("A dot");
    expect(await alt()).toBe("A dot");
    await site.write("PUT", `/api/media/${media.id}`, { alt: "A larger dot" });
    expect(await alt()).toBe("A larger dot");
  });

  it("feeds and the sitemap follow a new post and a renamed site", async () => {
    const site = await pair();
    await post(site, { title: "Old news" });
    const feed = async () => (await site.read("/feeds/latest/atom")).text();
    expect(await feed()).toContain("Old news");
    expect((await site.read("/feeds/latest/atom")).headers.get("quire-cache")).toBe("hit");
    await post(site, { title: "Fresh news", slug: "fresh" });
    expect(await feed()).toContain("Fresh news");
    expect(await (await site.read("/sitemap.xml")).text()).toContain("/fresh");
    await site.write("PUT", "/api/settings", { SITE_NAME: "Renamed site" });
    expect(await feed()).toContain("Renamed site");
  });

  it("addresses follow a custom URL, and a collection's Threads follow a membership", async () => {
    const site = await pair();
    const target = await post(site, { title: "Target", slug: "target" });
    const resolve = async () => (await site.read("/api/public/resolve?path=%2Fnew-home")).json();
    expect((await resolve()).kind).toBe("not_found");
    await site.write("POST", "/api/custom-urls", {
      path: "new-home",
      targetType: "post",
      targetId: target.id,
    });
    expect(await resolve()).toMatchObject({ kind: "post" });
    const collection = (await site.write("POST", "/api/collections", { slug: "picks", title: "Picks" })).body;
    const picks = async () =>
      titles(await site.read(`/api/public/threads?collection=${encodeURIComponent(collection.slug)}`));
    const before = await site.read(`/api/public/threads?collection=${collection.slug}`);
    expect(before.status).toBe(200);
    expect(await titles(before)).toEqual([]);
    await site.write("POST", `/api/collections/${collection.id}/threads`, { threadId: target.id });
    expect(await picks()).toEqual(["Target"]);
  });

  it("settings: PUBLIC_API_ENABLED turned off answers 404 at once, and on again 200", async () => {
    const site = await pair();
    await post(site, { title: "Visible" });
    expect((await site.read(threadList)).status).toBe(200);
    expect((await site.read(threadList)).headers.get("quire-cache")).toBe("hit");
    await site.write("PUT", "/api/settings", { PUBLIC_API_ENABLED: "false" });
    expect((await site.read(threadList)).status).toBe(404);
    await site.write("PUT", "/api/settings", { PUBLIC_API_ENABLED: "true" });
    expect(await titles(await site.read(threadList))).toEqual(["Visible"]);
  });
});

describe("ETag and If-None-Match", () => {
  for (const cache of ["on", "off"] as const) {
    it(`answers 304 with no body for a matching tag, and 200 with a new tag after a write (cache ${cache})`, async () => {
      const site = await pair(cache === "off" ? { responseCache: false } : {});
      await post(site, { title: "One" });
      const first = await site.read(threadList);
      const etag = first.headers.get("etag");
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(first.headers.get("cache-control")).toBe("public, no-cache");
      expect(first.headers.get("quire-cache")).toBe(cache === "on" ? "miss" : null);
      const body = await first.text();

      for (const tag of [etag as string, `W/${etag}`, `"other", ${etag}`]) {
        const revalidated = await site.read(threadList, { "if-none-match": tag });
        expect(revalidated.status).toBe(304);
        expect(await revalidated.text()).toBe("");
        expect(revalidated.headers.get("etag")).toBe(etag);
      }
      expect((await site.read(threadList, { "if-none-match": '"other"' })).status).toBe(200);

      await post(site, { title: "Two" });
      const changed = await site.read(threadList, { "if-none-match": etag as string });
      expect(changed.status).toBe(200);
      expect(changed.headers.get("etag")).not.toBe(etag);
      expect(await changed.text()).not.toBe(body);
    });
  }

  it("equal bytes have equal tags: a write that changes nothing the list shows keeps its tag", async () => {
    const site = await pair();
    await post(site, { title: "One" });
    const etag = (await site.read(threadList)).headers.get("etag");
    await site.write("POST", "/api/nav-items", { type: "link", label: "Home", url: "https://example.com/" });
    const after = await site.read(threadList, { "if-none-match": etag as string });
    expect(after.headers.get("quire-cache")).toBe("miss");
    expect(after.status).toBe(304);
  });

  it("owner answers carry no ETag and are never cached", async () => {
    const site = await pair();
    const response = await createHandler(site.writer, {
      devApiToken: "dev-token",
      clientAddress: () => "127.0.0.1",
    })(new Request("http://localhost/api/threads", { headers: { authorization: "Bearer dev-token" } }));
    expect(response.status).toBe(200);
    expect(response.headers.get("etag")).toBeNull();
    expect(response.headers.get("quire-cache")).toBeNull();
  });
});

describe("memory bound and toggle", () => {
  it("keeps at most maxBytes, the least recently used answer out first", async () => {
    const probe = await pair();
    await post(probe, { title: "Sized" });
    const size = (await (await probe.read("/api/public/threads?limit=1")).arrayBuffer()).byteLength;

    // Room for about two answers of this size (each counted with its key and a fixed overhead).
    const site = await pair({ responseCache: { maxBytes: 2 * (size + 600) } });
    await post(site, { title: "Sized" });
    const state = async (limit: number) =>
      (await site.read(`/api/public/threads?limit=${limit}`)).headers.get("quire-cache");
    expect(await state(1)).toBe("miss");
    expect(await state(2)).toBe("miss");
    expect(await state(1)).toBe("hit"); // 1 is now the most recently used
    expect(await state(3)).toBe("miss"); // evicts 2
    expect(await state(1)).toBe("hit");
    expect(await state(2)).toBe("miss");
  });

  it("an answer larger than the bound is served but not kept", async () => {
    const site = await pair({ responseCache: { maxBytes: 64 } });
    await post(site, { title: "Too big" });
    expect((await site.read(threadList)).headers.get("quire-cache")).toBe("miss");
    expect((await site.read(threadList)).headers.get("quire-cache")).toBe("miss");
  });

  it("turned off, every read is computed and still follows writes through another engine", async () => {
    const site = await pair({ responseCache: false });
    await post(site, { title: "One" });
    const first = await site.read(threadList);
    expect(first.headers.get("quire-cache")).toBeNull();
    expect(await titles(first)).toEqual(["One"]);
    await post(site, { title: "Two" });
    expect(await titles(await site.read(threadList))).toEqual(["Two", "One"]);
  });

  it("a feed with a publish delay is not kept: an entry appears when its delay has passed, with no write", async () => {
    const site = await pair();
    await site.write("PUT", "/api/settings", { RSS_PUBLISH_DELAY_SECONDS: "60" });
    await post(site, { title: "Delayed" });
    const feed = await site.read("/feeds/latest/rss");
    expect(await feed.text()).not.toContain("Delayed");
    expect(feed.headers.get("etag")).not.toBeNull();
    expect((await site.read("/feeds/latest/rss")).headers.get("quire-cache")).toBeNull();
  });
});
