import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { createMemoryStorage, type MemoryStorage } from "../../test/memory-storage.js";
import { codeOf } from "../../test/support.js";
import { type Caller, internalCaller, ownerCaller, publicCaller } from "../caller.js";
import { openDatabase } from "../db/open.js";
import { createEngine, type Engine } from "../engine.js";
import { sequentialIds } from "../shared/ids.js";
import { fixedClock } from "../shared/time.js";
import { openTestDatabase, testDatabaseKind } from "../testing/test-engine.js";
import { archivedTables, archiveVersion, unarchivedTables } from "./archive-format.js";
import { exportSiteArchive } from "./export-archive.js";
import { importSiteArchive } from "./import-archive.js";

const now = 1_750_000_000;
const settings = { siteLanguage: "en", additionalLanguages: ["fr", "de"], multilingualEnabled: true };
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Site {
  engine: Engine;
  storage: MemoryStorage;
}

/** A site on a SQLite file, whatever database the run is on. */
async function sqliteSite(): Promise<Site> {
  const dir = mkdtempSync(join(tmpdir(), "quire-archive-"));
  const db = await openDatabase({ url: join(dir, "quire.db") });
  cleanups.push(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  return site(db);
}

/** A site on the run's database (PostgreSQL under `QUIRE_TEST_DATABASE=postgres`). */
async function runSite(): Promise<Site> {
  const { db, cleanup } = await openTestDatabase();
  cleanups.push(cleanup);
  return site(db);
}

async function site(db: Parameters<typeof createEngine>[0]["db"]): Promise<Site> {
  const clock = fixedClock(now);
  const storage = createMemoryStorage(() => clock.now());
  const engine = createEngine({ db, clock, ids: sequentialIds(), storage, settings });
  await engine.migrate();
  return { engine, storage };
}

function png(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(200_000);
  const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...be32(13), 0x49, 0x48, 0x44, 0x52]);
  bytes.set([...be32(width), ...be32(height), 8, 6, 0, 0, 0], 16);
  for (let i = 40; i < bytes.length; i++) bytes[i] = (i * 7) & 255;
  return bytes;
}

/** A site with something of everything the archive holds. */
async function seed(engine: Engine): Promise<Record<string, string>> {
  const image = await engine.media.upload({ file: png(4, 3), filename: "dot.png" });
  await engine.media.upload({ file: png(2, 2), filename: "loose.png" });
  const root = await engine.posts.create({
    format: "note",
    title: "Hello",
    bodyMarkdown: "Hello *world*",
    language: "en",
    attachments: [
      { type: "media", mediaId: image.id, alt: "a dot" },
      { type: "text", content: "# Notes\n\nsome text" },
    ],
  });
  const reply = await engine.posts.create({
    format: "note",
    bodyMarkdown: "first reply",
    replyToId: root.id,
  });
  await engine.posts.create({ format: "note", bodyMarkdown: "quiet", replyToId: reply.id, quietReply: true });
  await engine.posts.create({
    format: "note",
    bodyMarkdown: "draft reply",
    replyToId: root.id,
    status: "draft",
  });
  const french = await engine.posts.create({
    format: "note",
    title: "Bonjour",
    bodyMarkdown: "Salut",
    language: "fr",
  });
  await engine.translations.link({ id: root.id, postId: french.id });
  await engine.posts.create({ format: "note", title: "Draft", status: "draft" });
  const page = await engine.posts.create({
    format: "note",
    title: "Private",
    visibility: "private",
    pinned: true,
  });
  const link = await engine.posts.create({
    format: "link",
    title: "Link",
    url: "https://example.com/",
    visibility: "latest_hidden",
    featured: true,
  });
  const quote = await engine.posts.create({
    format: "quote",
    quoteText: "Quoted",
    sourceName: "Someone",
    path: "q/1",
  });
  const collection = await engine.collections.create({ slug: "reading", title: "Reading" });
  const other = await engine.collections.create({ slug: "other", title: "Other" });
  for (const id of [root.id, link.id, quote.id])
    await engine.collections.addThread({ id: collection.id, threadId: id });
  await engine.collections.addThread({ id: other.id, threadId: root.id });
  await engine.collections.pinThread({ id: collection.id, threadId: quote.id });
  const smart = await engine.smartCollections.create({
    slug: "linked",
    title: "Linked",
    selection: { collection: [collection.id] },
    sortOrder: "oldest",
  });
  await engine.directoryItems.create({ type: "divider" });
  await engine.directoryItems.create({ type: "link", label: "Elsewhere", url: "https://example.org/" });
  await engine.navItems.create({ type: "collection", collectionId: collection.id });
  await engine.navItems.create({ type: "smart_collection", smartCollectionId: smart.id, label: "Smart" });
  const about = await engine.posts.create({ format: "note", title: "About", bodyMarkdown: "About me" });
  await engine.navItems.create({ type: "page", postId: about.id });
  await engine.navItems.create({ type: "link", label: "Home", url: "https://example.net/" });
  await engine.customUrls.create({ path: "greeting", targetType: "post", targetId: root.id });
  await engine.settings.update({ SITE_NAME: "Archived site", DISCOVER: "latest" });
  return {
    root: root.id,
    reply: reply.id,
    french: french.id,
    page: page.id,
    collection: collection.id,
    smart: smart.id,
    image: image.id,
    rootSlug: (await engine.posts.get({ id: root.id })).slug,
  };
}

const callers: Record<string, Caller> = {
  public: publicCaller,
  owner: ownerCaller,
  internal: internalCaller,
};

/** Every read operation's answer (or error code) for the inputs that make sense on the seeded site. */
async function readAll(engine: Engine, ids: Record<string, string>): Promise<Record<string, unknown>> {
  const posts = await engine.context.db.selectFrom("posts").select(["id", "slug"]).orderBy("id").execute();
  const media = await engine.context.db.selectFrom("media").select("id").orderBy("id").execute();
  const inputs: Record<string, unknown[]> = {
    "posts.list": [{}, { status: "draft" }, { limit: 2 }],
    "posts.get": posts.map((post) => ({ id: post.id })),
    "publicPosts.get": posts.map((post) => ({ slug: post.slug })),
    "threads.list": [{}, { limit: 2 }],
    "threads.get": [{ id: ids.root }],
    "threads.listPosts": [{ id: ids.root }],
    "publicThreads.list": [{}],
    "publicThreads.get": [{ slug: ids.rootSlug }],
    "publicThreads.listPosts": [{ slug: ids.rootSlug }],
    "translations.list": [{ id: ids.root }, { id: ids.french }],
    "translations.candidates": [{ id: ids.root, q: "bon" }],
    "posts.slug": [{ mode: "suggest", title: "Hello" }],
    "collections.checkSlug": [{ mode: "check", slug: "reading" }],
    "smartCollections.slug": [{ mode: "check", slug: "linked" }],
    "translations.resolve": [{ id: ids.root, url: "https://example.com/fr/" }],
    "media.list": [{}],
    "media.get": media.map((row) => ({ id: row.id })),
    "attachments.getContent": media.map((row) => ({ id: row.id })),
    "customUrls.list": [{}],
    "discover.posts": [{ id: posts.map((post) => post.id) }],
    "addresses.resolve": [
      { path: "/greeting" },
      { path: "/reading" },
      { path: "/linked" },
      { path: `/${ids.rootSlug}` },
    ],
    "collections.list": [{}, { view: "compose" }],
    "collections.get": [{ id: ids.collection }],
    "smartCollections.list": [{}],
    "smartCollections.get": [{ id: ids.smart }],
    "smartCollections.listThreads": [{ id: ids.smart }],
    "publicSmartCollections.listThreads": [{ slug: "linked" }],
    "navItems.list": [{}],
    "settings.get": [{}],
    "posts.search": [{ q: "hello" }, { q: "salut" }],
  };
  const answers: Record<string, unknown> = {};
  for (const [id, operation] of engine.operations) {
    if (!(operation.hints?.readOnly || id in inputs) || id === "tokens.list") continue;
    for (const [n, input] of (inputs[id] ?? [{}]).entries()) {
      let answer: unknown;
      try {
        answer = await engine.execute(id, input, callers[operation.access] as Caller);
      } catch (err) {
        answer = { error: (err as { code?: string }).code ?? String(err) };
      }
      answers[`${id}#${n}`] = JSON.parse(JSON.stringify(answer));
    }
  }
  return answers;
}

async function bytesOf(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

async function rowCounts(engine: Engine): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of archivedTables) {
    const row = await engine.context.db
      .selectFrom(table.name)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    counts[table.name] = Number(row.n);
  }
  return counts;
}

describe("the site archive", () => {
  it(`round-trips SQLite → ${testDatabaseKind()} → SQLite with the same answers from every read operation`, async () => {
    const source = await sqliteSite();
    const ids = await seed(source.engine);
    const expected = await readAll(source.engine, ids);
    expect(Object.keys(expected).length).toBeGreaterThan(40);
    // The answers are real reads, not refusals (a refusal would compare equal too).
    // Drafts have no public page and media no text content; another module's new read gets `{}`.
    const refused = Object.entries(expected).filter(
      ([name, answer]) =>
        (answer as { error?: string }).error &&
        !/^(publicPosts\.get|attachments\.getContent|feeds\.)/.test(name),
    );
    expect(refused).toEqual([]);
    expect(expected["attachments.getContent#2"]).not.toHaveProperty("error");

    const first = await bytesOf(exportSiteArchive(source.engine));
    const middle = await runSite();
    const summary = await importSiteArchive(middle.engine, once(first));
    expect(summary.files).toBe(source.storage.objects.size);
    expect(await readAll(middle.engine, ids)).toEqual(expected);
    expect(await rowCounts(middle.engine)).toEqual(await rowCounts(source.engine));

    const second = await bytesOf(exportSiteArchive(middle.engine));
    const back = await sqliteSite();
    await importSiteArchive(back.engine, once(second));
    expect(await readAll(back.engine, ids)).toEqual(expected);
    for (const [key, object] of source.storage.objects) {
      expect(back.storage.objects.get(key)?.bytes, key).toEqual(object.bytes);
    }
    // Search works on the restored site (its index is rebuilt from the restored rows).
    const found = await back.engine.posts.search({ q: "salut" });
    expect(JSON.stringify(found)).toContain(ids.french);
  });

  it("names every table of the database as archived or deliberately left out", async () => {
    const { engine } = await runSite();
    const names =
      testDatabaseKind() === "postgres"
        ? (
            await sql<{ name: string }>`select table_name as name from information_schema.tables
              where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(engine.context.db)
          ).rows.map((row) => row.name)
        : (
            await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(
              engine.context.db,
            )
          ).rows.map((row) => row.name);
    const known = new Set<string>([...archivedTables.map((table) => table.name), ...unarchivedTables]);
    const unknown = names.filter(
      (name) =>
        !known.has(name) &&
        !name.startsWith("kysely_") &&
        !name.startsWith("quire_migration") &&
        !name.startsWith("sqlite_") &&
        !name.startsWith("post_search_fts"),
    );
    expect(unknown).toEqual([]);
  });

  it("refuses a site with content unless forced, and replaces it when forced", async () => {
    const source = await sqliteSite();
    const ids = await seed(source.engine);
    const archive = await bytesOf(exportSiteArchive(source.engine));
    const target = await runSite();
    const mine = await target.engine.posts.create({ format: "note", title: "Mine" });
    expect(await codeOf(importSiteArchive(target.engine, once(archive)))).toBe("CONFLICT");
    expect((await target.engine.posts.get({ id: mine.id })).id).toBe(mine.id);
    expect(target.storage.objects.size).toBe(0);

    await importSiteArchive(target.engine, once(archive), { force: true });
    expect(await codeOf(target.engine.posts.get({ id: mine.id }))).toBe("NOT_FOUND");
    expect(await readAll(target.engine, ids)).toEqual(await readAll(source.engine, ids));
  });

  it("restores rows whose columns come in another order or leave one out (a hand-edited archive) as the export's own, the left-out column taking its default", async () => {
    const source = await sqliteSite();
    const ids = await seed(source.engine);
    const archive = new TextDecoder().decode(await bytesOf(exportSiteArchive(source.engine)));
    let edited = 0;
    let zeroLeftOut = false;
    const lines = archive.split("\n").map((line) => {
      if (!line.startsWith('{"table":"posts"')) return line;
      const parsed = JSON.parse(line) as { table: string; row: Record<string, unknown> };
      edited += 1;
      // The second row without a column whose default is NULL, a later one without one whose
      // default is 0 (NOT NULL: written as NULL in a multi-row insert, it would be refused), each
      // time with the default as its value; every fourth row with its columns reversed; the first
      // as exported, so it sets the batch's columns.
      const entries = Object.entries(parsed.row);
      const leftOut =
        edited === 2
          ? "preview_kind"
          : edited > 2 && !zeroLeftOut && parsed.row.quiet_reply === 0
            ? "quiet_reply"
            : undefined;
      if (leftOut === "quiet_reply") zeroLeftOut = true;
      if (leftOut === "preview_kind") expect(parsed.row.preview_kind).toBeNull();
      const row = leftOut
        ? Object.fromEntries(entries.filter(([column]) => column !== leftOut))
        : Object.fromEntries(edited % 4 === 0 ? entries.reverse() : entries);
      return JSON.stringify({ table: parsed.table, row });
    });
    expect(edited).toBeGreaterThan(4);
    expect(zeroLeftOut).toBe(true);
    const first = JSON.parse(archive.split("\n").find((line) => line.startsWith('{"table":"posts"')) ?? "{}");
    expect(first.row.preview_kind).toBeNull();

    const target = await runSite();
    await importSiteArchive(target.engine, once(new TextEncoder().encode(lines.join("\n"))));
    expect(await readAll(target.engine, ids)).toEqual(await readAll(source.engine, ids));
  });

  it.each([
    ["the run's database", runSite],
    ["a SQLite file", sqliteSite],
  ] as const)("is the site at one instant on %s: a write during the export is not in it", async (_, open) => {
    const { engine } = await open();
    const ids: string[] = [];
    for (let i = 0; i < 80; i++) {
      const post = await engine.posts.create({
        format: "note",
        title: `Post ${i}`,
        bodyMarkdown: "words ".repeat(200),
      });
      ids.push(post.id);
    }
    const archive = exportSiteArchive(engine);
    const first = await archive.next();
    // The first 64 KiB are out: the export is part-way through the posts, before collections.
    expect(new TextDecoder().decode(first.value as Uint8Array)).toContain('"table":"posts"');
    // Writes during the export answer at once (the export holds no connection of the engine's),
    // and none of them is in the archive: a new collection, a new post, and a post deleted.
    await engine.collections.create({ slug: "late", title: "Late" });
    await engine.posts.create({ format: "note", title: "Late post" });
    const gone = ids[79] as string;
    await engine.posts.delete({ id: gone });
    const rest: Uint8Array[] = [first.value as Uint8Array];
    for await (const part of archive) rest.push(part);
    const text = new TextDecoder().decode(Buffer.concat(rest));
    expect(text).not.toContain('"slug":"late"');
    expect(text).not.toContain("Late post");
    expect(text).toContain(`"id":"${gone}"`);
    expect(text.match(/"table":"posts"/g)).toHaveLength(80);
    // Once the export is done, the engine sees its own writes as before.
    expect((await engine.collections.list({})).collections.map((c) => c.slug)).toContain("late");
  });

  describe("bad archives change nothing", () => {
    let archive: Uint8Array;
    async function target(): Promise<Site> {
      if (!archive) {
        const source = await sqliteSite();
        await seed(source.engine);
        archive = await bytesOf(exportSiteArchive(source.engine));
      }
      return runSite();
    }
    async function expectUntouched(site: Site): Promise<void> {
      const counts = await rowCounts(site.engine);
      expect(Object.values(counts).every((n) => n === 0)).toBe(true);
      expect(site.storage.objects.size).toBe(0);
    }
    const text = () => new TextDecoder().decode(archive);

    it("a truncated archive: at every tenth of its length", async () => {
      const site = await target();
      for (let tenth = 1; tenth < 10; tenth++) {
        const cut = archive.subarray(0, Math.floor((archive.length * tenth) / 10));
        const error = importSiteArchive(site.engine, once(cut));
        await expect(error).rejects.toThrow(/truncated|corrupt/);
        await expectUntouched(site);
      }
      // Cut exactly at a line's end: every line whole, the trailer missing.
      const lines = text().split("\n");
      const whole = `${lines.slice(0, -2).join("\n")}\n`;
      await expect(importSiteArchive(site.engine, once(new TextEncoder().encode(whole)))).rejects.toThrow(
        /truncated/,
      );
      await expectUntouched(site);
    });

    it("a corrupt archive: a damaged line, a bad chunk, a wrong count, a foreign table", async () => {
      const site = await target();
      const lines = text().split("\n");
      const variants: [string, string[]][] = [
        ["garbled JSON", lines.map((line, i) => (i === 5 ? line.slice(0, 20) : line))],
        ["bad base64", lines.map((line) => (line.startsWith('{"chunk"') ? '{"chunk":"%%%"}' : line))],
        [
          "wrong count",
          lines.map((line) => (line.startsWith('{"end"') ? line.replace(/"rows":\d+/, '"rows":1') : line)),
        ],
        [
          "foreign table",
          lines.map((line, i) => (i === 3 ? '{"table":"api_tokens","row":{"id":"x"}}' : line)),
        ],
        [
          "a row the database refuses",
          lines.map((line, i) => (i === 3 ? line.replace('"row":{', '"row":{"nope":1,') : line)),
        ],
        [
          // Not the first row of its batch: the batch's statement is shaped by the first row's columns.
          "a later row naming a column the rows before it do not",
          lines.map((line, i) =>
            i === lines.findIndex((l) => l.startsWith('{"table":"posts"')) + 1
              ? line.replace('"row":{', '"row":{"nope":1,')
              : line,
          ),
        ],
        [
          "a file no record names",
          lines.map((line) => line.replace(/"file":"[^"]+"/, '"file":"../../etc/passwd"')),
        ],
        ["a wrong file size", lines.map((line) => line.replace(/"size":\d+/, '"size":3'))],
      ];
      for (const [name, variant] of variants) {
        const bytes = new TextEncoder().encode(variant.join("\n"));
        expect(await codeOf(importSiteArchive(site.engine, once(bytes))), name).toBe("VALIDATION_ERROR");
        await expectUntouched(site);
      }
      expect(await codeOf(importSiteArchive(site.engine, once(new Uint8Array([0xff, 0xfe, 10]))))).toBe(
        "VALIDATION_ERROR",
      );
    });

    it("a newer format version or schema, refused before anything is written", async () => {
      const site = await target();
      const lines = text().split("\n");
      const newer = [
        lines[0]?.replace(`"version":${archiveVersion}`, `"version":${archiveVersion + 1}`),
        ...lines.slice(1),
      ];
      const error = importSiteArchive(site.engine, once(new TextEncoder().encode(newer.join("\n"))));
      await expect(error).rejects.toThrow(/version 2; this Quire reads up to version 1/);
      const schema = [lines[0]?.replace(/"schema":"[^"]+"/, '"schema":"999-future"'), ...lines.slice(1)];
      expect(
        await codeOf(importSiteArchive(site.engine, once(new TextEncoder().encode(schema.join("\n"))))),
      ).toBe("VALIDATION_ERROR");
      // Not even on a site with content: the version is checked before the site is.
      await site.engine.posts.create({ format: "note", title: "Mine" });
      await expect(
        importSiteArchive(site.engine, once(new TextEncoder().encode(newer.join("\n"))), { force: true }),
      ).rejects.toThrow(/version 2/);
      expect((await site.engine.posts.list({})).posts).toHaveLength(1);
    });
  });
});
