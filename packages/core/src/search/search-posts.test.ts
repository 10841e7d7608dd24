import { type Kysely, sql } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { codeOf, openTestEngine } from "../../test/support.js";
import type { Database } from "../db/schema.js";
import type { Engine } from "../engine.js";
import { EngineError } from "../errors.js";
import { rankingWindow } from "./search-query.js";

let engine: Engine;
const NOW = 1_700_000_000;

beforeEach(async () => {
  ({ engine } = await openTestEngine({ now: NOW }));
});

const found = async (q: string) => (await engine.posts.search({ q, limit: 50 })).results.map((r) => r.id);

describe("posts.search input", () => {
  it("refuses an empty, blank or over-long q with VALIDATION_ERROR naming q", async () => {
    for (const q of ["", "   ", "\t\n", "x".repeat(201)]) {
      const err = await engine.posts.search({ q }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EngineError);
      expect((err as EngineError).code).toBe("VALIDATION_ERROR");
      expect((err as EngineError).details?.fieldErrors).toHaveProperty("q");
    }
    expect(await codeOf(engine.posts.search({ q: "x".repeat(200) }))).toBe("OK");
  });

  it("clamps limit to 1..50 and defaults to 20", async () => {
    for (let i = 0; i < 55; i++)
      await engine.posts.create({ format: "note", bodyMarkdown: `common word ${i}` });
    expect((await engine.posts.search({ q: "common" })).count).toBe(20);
    expect((await engine.posts.search({ q: "common", limit: 0 })).count).toBe(1);
    expect((await engine.posts.search({ q: "common", limit: -5 })).count).toBe(1);
    expect((await engine.posts.search({ q: "common", limit: 500 })).count).toBe(50);
    expect((await engine.posts.search({ q: "common", limit: 7 })).results).toHaveLength(7);
  });

  it("answers with the trimmed query, the results and their count", async () => {
    await engine.posts.create({ format: "note", bodyMarkdown: "hello there" });
    const answer = await engine.posts.search({ q: "  hello  " });
    expect(answer).toMatchObject({ query: "hello", count: 1 });
    expect(answer.results).toHaveLength(1);
  });
});

describe("posts.search results", () => {
  it("returns the result object: quote posts carry source fields, not title/url", async () => {
    const note = await engine.posts.create({
      format: "note",
      title: "Zebra note",
      bodyMarkdown: "About zebras.",
    });
    const quote = await engine.posts.create({
      format: "quote",
      quoteText: "A zebra quote",
      sourceName: "Someone",
      sourceUrl: "https://example.com/q",
      visibility: "private",
    });
    const reply = await engine.posts.create({
      format: "note",
      replyToId: quote.id,
      bodyMarkdown: "zebra reply",
    });
    const results = (await engine.posts.search({ q: "zebra" })).results;
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(byId.get(note.id)).toEqual({
      id: note.id,
      format: "note",
      slug: note.slug,
      title: "Zebra note",
      url: null,
      displayTitle: "Zebra note",
      publishedAt: NOW,
      permalink: `/${note.slug}`,
      visibility: "public",
      threadId: note.id,
      replyToId: null,
      snippet: "About <mark>zebra</mark>s.",
    });
    const q = byId.get(quote.id);
    expect(q).toMatchObject({
      sourceName: "Someone",
      sourceUrl: "https://example.com/q",
      visibility: "private",
    });
    expect(q).not.toHaveProperty("title");
    expect(q).not.toHaveProperty("url");
    expect(q?.snippet).toBe("A <mark>zebra</mark> quote");
    // A reply reads its Thread's visibility.
    expect(byId.get(reply.id)).toMatchObject({
      visibility: "private",
      threadId: quote.id,
      replyToId: quote.id,
    });
  });

  it("ranks posts with more hits first (bm25 on SQLite, term frequency on PostgreSQL)", async () => {
    const once = await engine.posts.create({
      format: "note",
      bodyMarkdown: `walrus ${"filler words here ".repeat(20)}`,
    });
    const often = await engine.posts.create({ format: "note", bodyMarkdown: "walrus walrus walrus" });
    expect(await found("walrus")).toEqual([often.id, once.id]);
  });

  it("ranks short-term queries the same way, the more recently written text first on equal scores", async () => {
    const old = await engine.posts.create({ format: "note", bodyMarkdown: "ox" });
    const mid = await engine.posts.create({ format: "note", bodyMarkdown: "ox" });
    const often = await engine.posts.create({ format: "note", bodyMarkdown: "ox ox ox" });
    expect(await found("ox")).toEqual([often.id, mid.id, old.id]);
    // An edit of anything but what is searched (a rating) leaves the post's search row as it was.
    await engine.posts.update({ id: old.id, rating: 3 });
    expect(await found("ox")).toEqual([often.id, mid.id, old.id]);
    // An edit of what is searched rewrites it, so it becomes the most recently written, even when
    // the text ends as it was.
    await engine.posts.update({ id: old.id, bodyMarkdown: "yak" });
    await engine.posts.update({ id: old.id, bodyMarkdown: "ox" });
    expect(await found("ox")).toEqual([often.id, old.id, mid.id]);
  });

  it("finds every match of a query with fewer matches than the window but many among recent posts", async () => {
    const best = await engine.posts.create({ format: "note", bodyMarkdown: "yak yak yak yak" });
    for (let i = 0; i < 119; i++) await engine.posts.create({ format: "note", bodyMarkdown: `yak ${i}` });
    const answer = await engine.posts.search({ q: "yak", limit: 50 });
    expect(answer.count).toBe(50);
    expect(answer.results[0]?.id).toBe(best.id);
    expect((await engine.posts.search({ q: "yak 118" })).count).toBe(1);
  });

  it(`ranks only the ${rankingWindow} most recently written matches of a query`, async () => {
    const first = await engine.posts.create({ format: "note", bodyMarkdown: "gnu gnu gnu gnu" });
    for (let i = 0; i < rankingWindow; i++)
      await engine.posts.create({ format: "note", bodyMarkdown: `gnu ${i}` });
    // The best match is outside the window: not found, though every other result ranks below it.
    const results = await found("gnu");
    expect(results).toHaveLength(50);
    expect(results).not.toContain(first.id);
    // Rewritten, it is inside the window again and ranks first.
    await engine.posts.update({ id: first.id, title: "Gnus" });
    expect((await found("gnu"))[0]).toBe(first.id);
  });
});

describe("posts.search snippets", () => {
  it("escapes post text so it cannot inject markup, and marks every hit", async () => {
    await engine.posts.create({
      format: "note",
      bodyMarkdown: "Use `<script>alert('x')</script>` & scripts; SCRIPT ends",
    });
    const [result] = (await engine.posts.search({ q: "script" })).results;
    expect(result?.snippet).toBe(
      "Use &lt;<mark>script</mark>&gt;alert(&#39;x&#39;)&lt;/<mark>script</mark>&gt; &amp; <mark>script</mark>s; <mark>SCRIPT</mark> ends",
    );
    expect(result?.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
  });

  it("escapes a title used as the snippet", async () => {
    await engine.posts.create({ format: "note", title: '<img src=x onerror="alert(1)"> tiger' });
    const [result] = (await engine.posts.search({ q: "tiger" })).results;
    expect(result?.snippet).toBe("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; <mark>tiger</mark>");
  });

  it("marks accented and case-folded hits in the original text", async () => {
    await engine.posts.create({ format: "note", bodyMarkdown: "Le CAFÉ et le café, puis Cafe." });
    const [result] = (await engine.posts.search({ q: "cafe" })).results;
    expect(result?.snippet).toBe("Le <mark>CAFÉ</mark> et le <mark>café</mark>, puis <mark>Cafe</mark>.");
  });

  it("cuts a long text around the first hit, with ellipses, and marks CJK hits", async () => {
    const before = "あ".repeat(300);
    await engine.posts.create({ format: "note", bodyMarkdown: `${before}東京${"い".repeat(300)}` });
    const [result] = (await engine.posts.search({ q: "東京" })).results;
    expect(result?.snippet.startsWith("…")).toBe(true);
    expect(result?.snippet.endsWith("…")).toBe(true);
    expect(result?.snippet).toContain("<mark>東京</mark>");
    expect(result?.snippet.length).toBeLessThan(200);
  });

  it("takes the snippet from the title when only the title matches", async () => {
    await engine.posts.create({ format: "note", title: "Kangaroo facts", bodyMarkdown: "Nothing here." });
    const [result] = (await engine.posts.search({ q: "kangaroo" })).results;
    expect(result?.snippet).toBe("<mark>Kangaroo</mark> facts");
  });
});

describe("posts.search scope and index upkeep", () => {
  it("never finds drafts; finds a post once published and not once unpublished", async () => {
    const post = await engine.posts.create({ format: "note", status: "draft", bodyMarkdown: "platypus" });
    expect(await found("platypus")).toEqual([]);
    await engine.posts.update({ id: post.id, status: "published" });
    expect(await found("platypus")).toEqual([post.id]);
    await engine.posts.update({ id: post.id, status: "draft" });
    expect(await found("platypus")).toEqual([]);
  });

  it("follows edits of the body, title, format and quote fields", async () => {
    const post = await engine.posts.create({ format: "note", title: "Heron", bodyMarkdown: "old body text" });
    await engine.posts.update({ id: post.id, bodyMarkdown: "a fresh body" });
    expect(await found("old body")).toEqual([]);
    expect(await found("fresh")).toEqual([post.id]);
    await engine.posts.update({ id: post.id, title: "Egret" });
    expect(await found("heron")).toEqual([]);
    expect(await found("egret")).toEqual([post.id]);
    await engine.posts.update({
      id: post.id,
      format: "quote",
      quoteText: "the osprey said",
      sourceName: "Bird",
    });
    expect(await found("egret")).toEqual([]);
    expect(await found("osprey bird")).toEqual([post.id]);
  });

  it("rewrites a post's search row when a searched field or the status changes, and only then", async () => {
    const { db, dialect } = engine.context;
    // Where the row is stored: a rewrite (delete and insert) moves it, SQLite's key or PostgreSQL's ctid.
    const rowAt = async (postId: string) => {
      const { rows } = await (dialect.name === "sqlite"
        ? sql<{ at: string }>`select cast(id as text) as at from post_search where post_id = ${postId}`
        : sql<{ at: string }>`select ctid::text as at from post_search where post_id = ${postId}`
      ).execute(db);
      return rows[0]?.at;
    };
    const link = await engine.posts.create({
      format: "link",
      url: "https://example.com/kestrel",
      title: "Kestrel",
      summary: "a small falcon",
      bodyMarkdown: "hovering",
    });
    let at = await rowAt(link.id);
    expect(at).toBeDefined();
    for (const change of [
      { pinned: true },
      { featured: true },
      { visibility: "private" as const },
      { slug: "renamed-kestrel" },
      { title: "Kestrel", bodyMarkdown: "hovering" },
    ]) {
      await engine.posts.update({ id: link.id, ...change });
      expect(await rowAt(link.id), JSON.stringify(change)).toBe(at);
    }
    const quote = await engine.posts.create({ format: "quote", quoteText: "wind", sourceName: "Gull" });
    const searched: [string, Record<string, unknown>, string][] = [
      [link.id, { title: "Merlin" }, "merlin"],
      [link.id, { bodyMarkdown: "stooping" }, "stooping"],
      [link.id, { summary: "a hobby" }, "hobby"],
      [link.id, { url: "https://example.com/peregrine" }, "peregrine"],
      [quote.id, { quoteText: "breeze" }, "breeze"],
      [quote.id, { sourceName: "Tern" }, "tern"],
      [quote.id, { sourceUrl: "https://example.com/skua" }, "skua"],
    ];
    for (const [id, change, q] of searched) {
      const before = await rowAt(id);
      await engine.posts.update({ id, ...change });
      expect(await rowAt(id), JSON.stringify(change)).not.toBe(before);
      expect(await found(q), q).toEqual([id]);
    }
    await engine.posts.update({ id: quote.id, status: "draft" });
    expect(await rowAt(quote.id)).toBeUndefined();
    await engine.posts.update({ id: quote.id, quoteText: "draft squall" });
    expect(await rowAt(quote.id)).toBeUndefined();
    await engine.posts.update({ id: quote.id, status: "published" });
    expect(await found("squall")).toEqual([quote.id]);
    at = await rowAt(link.id);
    await engine.posts.update({ id: link.id, status: "draft" });
    await engine.posts.update({ id: link.id, status: "published" });
    expect(await rowAt(link.id)).not.toBe(at);
    expect(await found("stooping")).toEqual([link.id]);
  });

  it("includes private posts and replies; a deleted reply or Thread leaves the index", async () => {
    const root = await engine.posts.create({
      format: "note",
      visibility: "private",
      bodyMarkdown: "lemur root",
    });
    const reply = await engine.posts.create({
      format: "note",
      replyToId: root.id,
      bodyMarkdown: "lemur reply",
    });
    const other = await engine.posts.create({
      format: "note",
      replyToId: root.id,
      bodyMarkdown: "lemur two",
    });
    expect(new Set(await found("lemur"))).toEqual(new Set([root.id, reply.id, other.id]));
    await engine.posts.delete({ id: reply.id });
    expect(new Set(await found("lemur"))).toEqual(new Set([root.id, other.id]));
    await engine.posts.delete({ id: root.id });
    expect(await found("lemur")).toEqual([]);
    const { db } = engine.context;
    expect(await db.selectFrom("post_search").select("post_id").execute()).toEqual([]);
  });

  it("writes nothing to the index when the post write fails", async () => {
    await engine.posts.create({ format: "note", slug: "taken", bodyMarkdown: "first" });
    expect(await codeOf(engine.posts.create({ format: "note", slug: "taken", bodyMarkdown: "tapir" }))).toBe(
      "CONFLICT",
    );
    expect(await found("tapir")).toEqual([]);
    const rows = await engine.context.db.selectFrom("post_search").select("post_id").execute();
    expect(rows).toHaveLength(1);
  });
});

describe("migration 010-search", () => {
  it("indexes the published posts that existed before it ran, drafts left out", async () => {
    const published = await engine.posts.create({ format: "note", bodyMarkdown: "Ancient aardvark" });
    const quote = await engine.posts.create({ format: "quote", quoteText: "aardvark says", sourceName: "Q" });
    await engine.posts.create({ format: "note", status: "draft", bodyMarkdown: "draft aardvark" });
    const db = engine.context.db;
    // Undo the migration (and on SQLite 015, which rebuilt its table), then run it again over the
    // existing posts.
    const rerun = await undoSearchMigrations(db, engine.context.dialect.name);
    expect(await engine.migrate()).toEqual(rerun);
    expect(new Set(await found("aardvark"))).toEqual(new Set([published.id, quote.id]));
    // Indexed in publication order: on equal scores the more recently published comes first.
    const publishedLater = await engine.posts.create({
      format: "note",
      bodyMarkdown: "okapi",
      publishedAt: NOW - 10,
    });
    const writtenLater = await engine.posts.create({
      format: "note",
      bodyMarkdown: "okapi",
      publishedAt: NOW - 20,
    });
    expect(await found("okapi")).toEqual([writtenLater.id, publishedLater.id]);
    await undoSearchMigrations(db, engine.context.dialect.name);
    expect(await engine.migrate()).toEqual(rerun);
    expect(await found("okapi")).toEqual([publishedLater.id, writtenLater.id]);
    expect(await found("ancient")).toEqual([published.id]);
  });
});

/** Drops what 010 (and, on SQLite, 015) made, so `migrate` runs them again; answers their names. */
async function undoSearchMigrations(db: Kysely<Database>, dialect: "sqlite" | "postgres"): Promise<string[]> {
  await sql`drop table post_search`.execute(db);
  if (dialect === "postgres") {
    await sql`delete from quire_migrations where name = '010-search'`.execute(db);
    return ["010-search"];
  }
  await sql`delete from content_versions where name = 'search_identity'`.execute(db);
  await sql`delete from quire_migrations where name in ('010-search', '015-search-outside-writes')`.execute(
    db,
  );
  return ["010-search", "015-search-outside-writes"];
}
