import pg from "pg";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { codeOf, openTestEngine } from "../../test/support.js";
import type { Engine } from "../engine.js";
import { EngineError } from "../errors.js";
import { testDatabaseKind } from "../testing/test-engine.js";

let engine: Engine;
const NOW = 1_700_000_000;

beforeEach(async () => {
  ({ engine } = await openTestEngine({ now: NOW }));
});

describe("posts.create", () => {
  it("creates a published public note with rendered body and Thread figures", async () => {
    const post = await engine.posts.create({ format: "note", bodyMarkdown: "Hello *world*" });
    expect(post).toMatchObject({
      format: "note",
      status: "published",
      visibility: "public",
      title: null,
      url: null,
      sourceName: null,
      sourceUrl: null,
      displayTitle: "Hello world",
      bodyText: "Hello world",
      quoteText: null,
      rating: null,
      replyToId: null,
      threadId: post.id,
      quietReply: false,
      publishedAt: NOW,
      lastActivityAt: NOW,
      threadUpdatedAt: NOW,
      threadPostCount: 1,
      createdAt: NOW,
      updatedAt: NOW,
      pinnedAt: null,
      featuredAt: null,
      attachments: [],
    });
    // Only posts.get carries these (spec § Post: "only in GET /api/posts/:id").
    expect(post).not.toHaveProperty("collectionIds");
    expect(post).not.toHaveProperty("threadPosition");
    expect(await engine.posts.get({ id: post.id })).toMatchObject({ collectionIds: [], threadPosition: 1 });
    expect(post.id).toMatch(/^pst_[0-9a-z]{26}$/);
    expect(post.bodyHtml).toContain("<em>world</em>");
    expect(JSON.parse(post.body as string).type).toBe("doc");
    expect(post.slug).toBe("hello-world");
  });

  it("omits title and url on quotes and keeps source fields", async () => {
    const post = await engine.posts.create({
      format: "quote",
      quoteText: "To be or not to be",
      sourceName: "Hamlet",
      sourceUrl: "https://example.com/hamlet",
    });
    expect(post).not.toHaveProperty("title");
    expect(post).not.toHaveProperty("url");
    expect(post).toMatchObject({
      sourceName: "Hamlet",
      sourceUrl: "https://example.com/hamlet",
      quoteText: "To be or not to be",
    });
    expect(post.displayTitle).toBe("To be or not to be");
  });

  it("requires title and url on links and rejects unsuited fields", async () => {
    expect(await codeOf(engine.posts.create({ format: "link", title: "x" }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.create({ format: "link", url: "https://a.example" }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.create({ format: "note", url: "https://a.example" }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.create({ format: "note", quoteText: "q" }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.create({ format: "quote", quoteText: "q", title: "t" }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.create({ format: "quote" }))).toBe("VALIDATION_ERROR");
    expect(
      await codeOf(engine.posts.create({ format: "link", title: "t", url: "javascript:alert(1)" })),
    ).toBe("VALIDATION_ERROR");
    const link = await engine.posts.create({ format: "link", title: "A site", url: "mailto:me@example.com" });
    expect(link).toMatchObject({ title: "A site", url: "mailto:me@example.com", displayTitle: "A site" });
  });

  it("reports every unsuited field in fieldErrors", async () => {
    const err = await engine.posts
      .create({ format: "note", url: "https://a.example", quoteText: "q" })
      .catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.details.fieldErrors).toHaveProperty("url");
    expect(err.details.fieldErrors).toHaveProperty("quoteText");
    expect(err.details.formErrors).toEqual([]);
  });

  it("rejects body with bodyMarkdown, slug with path, and a non-doc body", async () => {
    const doc = JSON.stringify({ type: "doc", content: [] });
    expect(await codeOf(engine.posts.create({ format: "note", body: doc, bodyMarkdown: "x" }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.create({ format: "note", slug: "a", path: "a" }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(
      await codeOf(engine.posts.create({ format: "note", body: JSON.stringify({ type: "paragraph" }) })),
    ).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.create({ format: "note", body: "not json" }))).toBe("VALIDATION_ERROR");
    const { posts } = await engine.posts.list({});
    expect(posts).toEqual([]);
  });

  it("accepts an editor document body", async () => {
    const body = JSON.stringify({
      type: "doc",
      content: [{ type: "paragraph", content: [{ type: "text", text: "Bold", marks: [{ type: "bold" }] }] }],
    });
    const post = await engine.posts.create({ format: "note", body });
    expect(post.bodyHtml).toBe("<p><strong>Bold</strong></p>");
    const markdown = await engine.posts.get({ id: post.id, content: "markdown" });
    expect(markdown.bodyMarkdown).toBe("**Bold**");
    expect(markdown).not.toHaveProperty("body");
    expect(markdown).not.toHaveProperty("bodyHtml");
    expect(markdown).not.toHaveProperty("bodyText");
  });

  it("refuses an editor document too complex to render (a text of 90,000 bare URLs overflowed the stack: a 500)", async () => {
    const paragraph = (text: string) => ({ type: "paragraph", content: [{ type: "text", text }] });
    const urls = JSON.stringify({ type: "doc", content: [paragraph("http://a.b ".repeat(90_000))] });
    const refused = await engine.posts.create({ format: "note", body: urls }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(EngineError);
    expect(refused).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { fieldErrors: { body: ["is too complex to render"] } },
    });
    expect((await engine.posts.list({})).posts).toEqual([]);
    // A few thousand are linked as usual.
    const some = JSON.stringify({ type: "doc", content: [paragraph("http://a.b ".repeat(2_000))] });
    const post = await engine.posts.create({ format: "note", body: some });
    expect(String(post.bodyHtml).match(/<a /g)).toHaveLength(2_000);
  });

  it("validates slugs: format, reserved, duplicates", async () => {
    expect(await codeOf(engine.posts.create({ format: "note", slug: "Bad Slug" }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.create({ format: "note", slug: "api" }))).toBe("VALIDATION_ERROR");
    await engine.posts.create({ format: "note", slug: "taken" });
    expect(await codeOf(engine.posts.create({ format: "note", slug: "taken" }))).toBe("CONFLICT");
  });

  it("turns a path into a canonical slug plus an alias", async () => {
    const plain = await engine.posts.create({ format: "note", title: "x", path: "hello-world" });
    expect(plain.slug).toBe("hello-world");
    const nested = await engine.posts.create({ format: "note", title: "y", path: "2024/01/hello-world" });
    expect(nested.slug).toBe("2024-01-hello-world");
    const reading = await engine.publicPosts.get({ slug: "2024-01-hello-world" });
    expect(reading.permalink).toBe("/2024/01/hello-world");
    expect(await codeOf(engine.posts.create({ format: "note", path: "2024/01/hello-world" }))).toBe(
      "CONFLICT",
    );
    expect(await codeOf(engine.posts.create({ format: "note", path: "/leading" }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.create({ format: "note", path: "a/../b" }))).toBe("VALIDATION_ERROR");
  });

  it("refuses a path or slug under a reserved prefix, naming the field, and stores nothing", async () => {
    const refused = async (input: { slug?: string; path?: string }, field: string) => {
      const error = await engine.posts
        .create({ format: "note", title: "Shadowed", ...input })
        .catch((err) => err);
      expect(error, JSON.stringify(input)).toBeInstanceOf(EngineError);
      expect(error.code).toBe("VALIDATION_ERROR");
      expect(Object.keys(error.details?.fieldErrors ?? {}), JSON.stringify(input)).toEqual([field]);
    };
    for (const path of [
      "api/posts",
      "media/photo.png",
      "healthz",
      "readyz/now",
      "api",
      "feed/rss.xml",
      "404.html",
      "index.html",
    ]) {
      await refused({ path }, "path");
    }
    for (const slug of ["api", "media", "healthz", "readyz"]) await refused({ slug }, "slug");
    expect((await engine.posts.list({})).posts).toEqual([]);
    // A reserved word inside a segment, or a later segment, is an ordinary address.
    expect((await engine.posts.create({ format: "note", path: "api-notes" })).slug).toBe("api-notes");
    expect((await engine.posts.create({ format: "note", path: "notes/api" })).slug).toBe("notes-api");
  });

  it("generates distinct slugs for equal titles", async () => {
    const a = await engine.posts.create({ format: "note", title: "Same Title" });
    const b = await engine.posts.create({ format: "note", title: "Same Title" });
    expect(a.slug).toBe("same-title");
    expect(b.slug).toBe("same-title-2");
    const reserved = await engine.posts.create({ format: "note", title: "Settings" });
    expect(reserved.slug).not.toBe("settings");
  });

  it("limits title and sourceName to 300 characters and rating to 1-5", async () => {
    expect(await codeOf(engine.posts.create({ format: "note", title: "x".repeat(301) }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(
      await codeOf(engine.posts.create({ format: "quote", quoteText: "q", sourceName: "s".repeat(301) })),
    ).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.create({ format: "note", rating: 6 }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.create({ format: "note", rating: 0 }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.create({ format: "note", rating: 2.5 }))).toBe("VALIDATION_ERROR");
    const rated = await engine.posts.create({ format: "note", title: "t".repeat(300), rating: 5 });
    expect(rated.rating).toBe(5);
  });

  it("keeps drafts without publishedAt and refuses one", async () => {
    const draft = await engine.posts.create({ format: "note", status: "draft", bodyMarkdown: "wip" });
    expect(draft).toMatchObject({ status: "draft", publishedAt: null, threadPostCount: 0 });
    expect(await codeOf(engine.posts.create({ format: "note", status: "draft", publishedAt: NOW }))).toBe(
      "VALIDATION_ERROR",
    );
  });

  it("restores times, pins and features", async () => {
    const post = await engine.posts.create({
      format: "note",
      title: "Old",
      createdAt: 1_600_000_000,
      updatedAt: 1_600_000_500,
      publishedAt: 1_600_000_100,
      pinnedAt: 1_600_000_200,
      featured: true,
    });
    expect(post).toMatchObject({
      createdAt: 1_600_000_000,
      updatedAt: 1_600_000_500,
      publishedAt: 1_600_000_100,
      pinnedAt: 1_600_000_200,
      featuredAt: NOW,
      lastActivityAt: 1_600_000_100,
    });
    const pinned = await engine.posts.create({ format: "note", title: "P", pinned: true, pinnedAt: null });
    expect(pinned.pinnedAt).toBeNull();
  });

  it("stores text attachments in order and serves their content", async () => {
    const post = await engine.posts.create({
      format: "note",
      title: "With text",
      attachments: [
        { type: "text", contentFormat: "markdown", content: "# One", summary: "first" },
        { type: "text", contentFormat: "markdown", content: "Two é" },
      ],
    });
    expect(post.attachments).toHaveLength(2);
    const [first, second] = post.attachments as Array<Record<string, unknown>>;
    expect(first).toMatchObject({ type: "text", contentFormat: "markdown", summary: "first", chars: 5 });
    expect(second).toMatchObject({ type: "text", summary: null, chars: 5 });
    // Core builds no transport URL: without links an in-process answer has no contentUrl.
    expect(first).not.toHaveProperty("contentUrl");
    const content = await engine.attachments.getContent({ id: first?.id as string });
    expect(content).toEqual({
      id: first?.id,
      type: "text",
      contentFormat: "markdown",
      content: "# One",
      summary: "first",
      chars: 5,
    });
    expect(
      await codeOf(engine.posts.create({ format: "note", attachments: [{ type: "text", content: "" }] })),
    ).toBe("VALIDATION_ERROR");
    const many = Array.from({ length: 21 }, () => ({ type: "text" as const, content: "x" }));
    expect(await codeOf(engine.posts.create({ format: "note", attachments: many }))).toBe("VALIDATION_ERROR");
  });

  it("rejects unknown media and collections", async () => {
    expect(
      await codeOf(
        engine.posts.create({
          format: "note",
          attachments: [{ type: "media", mediaId: "med_01h2xcejqtf2nbrexx3vqjhp41" }],
        }),
      ),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(
        engine.posts.create({ format: "note", collectionIds: ["col_01h2xcejqtf2nbrexx3vqjhp41"] }),
      ),
    ).toBe("VALIDATION_ERROR");
    expect(
      await codeOf(
        engine.posts.create({ format: "note", collectionIds: ["pst_01h2xcejqtf2nbrexx3vqjhp41"] }),
      ),
    ).toBe("VALIDATION_ERROR");
  });

  it("ignores unknown fields", async () => {
    const post = await engine.posts.create({ format: "note", title: "t", siteId: "x", whatever: 1 } as never);
    expect(post).not.toHaveProperty("siteId");
    expect(post).not.toHaveProperty("whatever");
  });
});

describe("text the database cannot store", () => {
  it("answers 400 for NUL characters in any field", async () => {
    const err = await engine.posts.create({ format: "note", title: "a\u0000b" }).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe("VALIDATION_ERROR");
    expect(err.details.fieldErrors).toHaveProperty("title");
    const nested = await engine.posts
      .create({ format: "note", attachments: [{ type: "text", content: "x\u0000" }] })
      .catch((e) => e.code);
    expect(nested).toBe("VALIDATION_ERROR");
    expect((await engine.posts.list({})).posts).toEqual([]);
  });

  it("answers 400 on body for NUL or half a surrogate pair escaped inside an editor document", async () => {
    // JSON.stringify writes NUL and a lone surrogate as escapes, so the body string is clean and
    // only the document it holds is not. NUL answered 500 on PostgreSQL, and a lone surrogate was
    // stored differently on each database.
    const doc = (text: string, href = "https://example.com/") =>
      JSON.stringify({
        type: "doc",
        content: [
          {
            type: "paragraph",
            content: [{ type: "text", text, marks: [{ type: "link", attrs: { href } }] }],
          },
        ],
      });
    const bodies = [
      doc("a\u0000b"),
      doc("a", "https://example.com/\u0000"),
      doc("a\ud800b"),
      doc("a\uDC00"),
      JSON.stringify({ type: "doc", content: [{ type: "image", attrs: { src: "/i.png", alt: "\ud83d" } }] }),
      JSON.stringify({ type: "doc", content: [{ type: "x\u0000", content: [{ type: "text", text: "t" }] }] }),
    ];
    for (const body of bodies) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what must be absent
      expect(body).not.toMatch(/[\u0000\ud800-\udfff]/);
      const err = await engine.posts.create({ format: "note", body }).catch((e) => e);
      expect(err.code, body).toBe("VALIDATION_ERROR");
      expect(err.details.fieldErrors, body).toHaveProperty("body");
    }
    const root = await engine.posts.create({ format: "note", title: "Kept" });
    const edit = await engine.posts.update({ id: root.id, body: bodies[0] }).catch((e) => e.code);
    expect(edit).toBe("VALIDATION_ERROR");
    expect((await engine.posts.list({})).posts.map((post) => post.id)).toEqual([root.id]);
    // Escaped pairs and an escaped backslash before "u0000" are text like any other.
    const fine = await engine.posts.create({
      format: "note",
      body: '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"\\ud83d\\ude00 \\\\u0000"}]}]}',
    });
    expect(fine.bodyText).toBe("😀 \\u0000");
  });
});

describe.skipIf(testDatabaseKind() !== "postgres")("a plain root on PostgreSQL: one statement", () => {
  /**
   * A create of `input`, with the SQL texts it sent to the server that write or open and close a
   * transaction (the version reads, and the GitHub sync's look for its connection after a write,
   * left out) and how many of all its statements the server refused with an error (the server
   * logs each).
   */
  async function createCounting(
    input: Parameters<Engine["posts"]["create"]>[0],
  ): Promise<{ post: Awaited<ReturnType<Engine["posts"]["create"]>>; sent: string[] & { refused: number } }> {
    const query = vi.spyOn(pg.Client.prototype, "query");
    try {
      const post = await engine.posts.create(input);
      const settled = await Promise.allSettled(query.mock.results.map((result) => result.value));
      const texts = query.mock.calls
        .map(([sent]) => (typeof sent === "string" ? sent : (sent as { text: string }).text))
        .filter((text) => /^(with|insert|update|delete|begin|commit|rollback)\b/.test(text));
      const sent = Object.assign(texts, {
        refused: settled.filter((result) => result.status === "rejected").length,
      });
      return { post, sent };
    } finally {
      query.mockRestore();
    }
  }

  it("writes the address, the row and the search row in one statement, outside any transaction", async () => {
    await engine.posts.create({ format: "note", title: "Warm-up" });
    const { post, sent } = await createCounting({
      format: "note",
      title: "All at once",
      bodyMarkdown: "Some *quiet* words.",
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^with "address" as \(insert into "site_addresses"/);
    expect(sent[0]).toContain('insert into "post_search"');
    expect(post.slug).toBe("all-at-once");
    expect((await engine.publicPosts.get({ slug: "all-at-once" })).id).toBe(post.id);
    expect((await engine.posts.search({ q: "quiet words" })).results.map((found) => found.id)).toEqual([
      post.id,
    ]);
    expect((await engine.posts.get({ id: post.id })).bodyHtml).toBe("<p>Some <em>quiet</em> words.</p>");
  });

  it("writes a draft in one statement too, with no search row", async () => {
    const { post: draft, sent } = await createCounting({
      format: "note",
      title: "Unseen",
      bodyMarkdown: "hidden",
      status: "draft",
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toContain("post_search");
    expect((await engine.posts.get({ id: draft.id })).status).toBe("draft");
    expect((await engine.posts.search({ q: "hidden" })).results).toEqual([]);
  });

  it("goes step by step when the address is taken: the next free slug, or CONFLICT for a requested one", async () => {
    const first = await engine.posts.create({ format: "note", title: "Same words", bodyMarkdown: "one" });
    const { post: second, sent } = await createCounting({
      format: "note",
      title: "Same words",
      bodyMarkdown: "two",
    });
    // The one statement, which writes nothing when the address is taken, then the step-by-step
    // write; no statement fails on the address's key (the server would log each as an ERROR).
    expect(sent[0]).toMatch(/^with "address"/);
    expect(sent.refused).toBe(0);
    expect(sent).toContain("begin");
    expect(sent.at(-1)).toBe("commit");
    expect([first.slug, second.slug]).toEqual(["same-words", "same-words-2"]);
    expect((await engine.publicPosts.get({ slug: "same-words-2" })).id).toBe(second.id);
    expect((await engine.posts.search({ q: "two" })).results.map((found) => found.id)).toEqual([second.id]);

    expect(
      await codeOf(engine.posts.create({ format: "note", slug: "same-words", bodyMarkdown: "three" })),
    ).toBe("CONFLICT");
    expect((await engine.posts.list({})).posts.map((post) => post.id).sort()).toEqual(
      [first.id, second.id].sort(),
    );
    expect((await engine.posts.search({ q: "three" })).results).toEqual([]);
  });
});
