import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type * as z from "zod";
import { codeOf, openTestEngine } from "../../test/support.js";
import type { Engine } from "../engine.js";
import { EngineError } from "../errors.js";
import { exportSiteArchive } from "../export/export-archive.js";
import { importSiteArchive } from "../export/import-archive.js";
import { tableNames } from "../testing/test-engine.js";
import { insertPost, isPlainRoot, planCreate } from "./create-write.js";
import { createPostInput } from "./post-schemas.js";

const NOW = 1_700_000_000;

type CreateInput = z.input<typeof createPostInput>;

/** What a site holds after the setup both engines run: one collection and one Thread root. */
async function setUp(engine: Engine): Promise<{ collectionId: string; rootId: string }> {
  const collection = await engine.collections.create({ slug: "reading", title: "Reading" });
  const root = await engine.posts.create({ format: "note", title: "First root", bodyMarkdown: "Hello" });
  return { collectionId: collection.id, rootId: root.id };
}

/** Create inputs of every kind a create takes: plain roots, a reply, collections, an attachment, a path. */
function inputs(site: { collectionId: string; rootId: string }): CreateInput[] {
  const body =
    "## Heading\n\nSome *text* with a [link](https://example.com) and https://example.org.\n\n- one\n- two";
  return [
    { format: "note", title: "Same title", bodyMarkdown: body },
    { format: "note", title: "Same title", bodyMarkdown: `${body}\n\nSecond.` },
    { format: "note", bodyMarkdown: "No title, the body names it\n\nmore" },
    { format: "note", title: "A draft", status: "draft", bodyMarkdown: body },
    {
      format: "link",
      title: "A link",
      url: "https://example.com/a",
      summary: "Worth reading",
      pinned: true,
      featured: true,
      rating: 4,
    },
    { format: "quote", quoteText: "To be or not to be", sourceName: "Hamlet", createdAt: NOW - 100 },
    { format: "note", title: "Own slug", slug: "own-slug", body: JSON.stringify(editorDoc) },
    { format: "note", title: "Dated", publishedAt: NOW - 50, createdAt: NOW - 60, updatedAt: NOW - 10 },
    { format: "note", bodyMarkdown: "A reply", replyToId: site.rootId },
    { format: "note", title: "In a collection", collectionIds: [site.collectionId] },
    {
      format: "note",
      title: "With a text attachment",
      attachments: [{ type: "text", content: "# Notes\n\nAttached.", summary: "notes" }],
    },
    { format: "note", title: "Custom path", path: "2024/01/custom-path" },
    { format: "note", title: "api", language: "de" },
    { format: "note", title: "Same title", visibility: "latest_hidden" },
  ];
}

const editorDoc = {
  type: "doc",
  content: [{ type: "paragraph", content: [{ type: "text", text: "From the editor" }] }],
};

/** Every table's rows, with IDs replaced by stable labels, so two sites written alike compare equal. */
async function snapshot(engine: Engine) {
  const db = engine.context.db;
  const tables = (await tableNames(engine))
    .filter(
      (name) =>
        !name.startsWith("kysely_") &&
        !name.startsWith("quire_migrations") &&
        // Counters of writes, not content: one multi-row insert moves them as far as many inserts.
        name !== "content_versions",
    )
    .sort();
  expect(tables).toEqual(expect.arrayContaining(["posts", "post_search", "site_addresses", "media"]));
  const rowsOf = async (table: string) =>
    (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
  // Posts are labelled by slug (unique), attachments by their post and position.
  const labels = new Map<string, string>();
  const posts = (await rowsOf("posts")).sort((a, b) => String(a.slug).localeCompare(String(b.slug)));
  for (const post of posts) labels.set(post.id as string, `post:${post.slug}`);
  for (const media of await rowsOf("media")) {
    labels.set(media.id as string, `media:${labels.get(media.post_id as string)}#${media.position}`);
  }
  const label = (value: unknown): unknown => {
    if (typeof value !== "string") return value;
    return value.replace(/\b[a-z]{3}_[0-9a-z]{26}\b/g, (id) => labels.get(id) ?? "other-id");
  };
  const result: Record<string, string[]> = {};
  for (const table of tables) {
    const rows = (await rowsOf(table)).map((row) => {
      const entries = Object.entries(row)
        // post_search's integer key orders the rows (checked below), it is not content.
        .filter(([column]) => !(table === "post_search" && column === "id"))
        .map(([column, value]) => [column, label(typeof value === "bigint" ? Number(value) : value)]);
      return JSON.stringify(Object.fromEntries(entries));
    });
    result[table] = rows.sort();
  }
  // Search rows are written in creation order (search ranks its window by write order).
  const searchOrder = (
    await sql<{ post_id: string }>`select post_id from post_search order by id`.execute(db)
  ).rows;
  return { tables: result, searchOrder: searchOrder.map((row) => labels.get(row.post_id)) };
}

describe("posts.createMany", () => {
  it("stores exactly what the same posts.create calls store, row for row in every table", async () => {
    const { engine: oneByOne } = await openTestEngine({ now: NOW });
    const { engine: bulk } = await openTestEngine({ now: NOW });
    const siteA = await setUp(oneByOne);
    const siteB = await setUp(bulk);
    expect(siteB).toEqual(siteA);

    const answers = [];
    for (const input of inputs(siteA)) answers.push(await oneByOne.posts.create(input));
    const { posts } = await bulk.posts.createMany({ posts: [...inputs(siteB)] });

    expect(posts.map((post) => post.slug)).toEqual(answers.map((post) => post.slug));
    expect(posts.map((post) => post.slug).slice(0, 2)).toEqual(["same-title", "same-title-2"]);
    const [a, b] = [await snapshot(oneByOne), await snapshot(bulk)];
    expect(Object.keys(b.tables)).toEqual(Object.keys(a.tables));
    for (const table of Object.keys(a.tables)) expect(b.tables[table], table).toEqual(a.tables[table]);
    expect(b.searchOrder).toEqual(a.searchOrder);
    // The comparison saw the rows it is about.
    expect(a.tables.posts).toHaveLength(1 + inputs(siteA).length);
    expect(a.tables.media).toHaveLength(1);
    expect(a.tables.collection_threads).toHaveLength(1);
  });

  it("restores from the site archive exactly what the posts.create calls stored, row for row in every table", async () => {
    const { engine: oneByOne } = await openTestEngine({ now: NOW });
    const { engine: restored } = await openTestEngine({ now: NOW });
    const site = await setUp(oneByOne);
    for (const input of inputs(site)) await oneByOne.posts.create(input);

    const summary = await importSiteArchive(restored, exportSiteArchive(oneByOne));
    expect(summary.tables.posts).toBe(1 + inputs(site).length);
    const [a, b] = [await snapshot(oneByOne), await snapshot(restored)];
    expect(Object.keys(b.tables)).toEqual(Object.keys(a.tables));
    for (const table of Object.keys(a.tables)) expect(b.tables[table], table).toEqual(a.tables[table]);
    expect(b.searchOrder).toEqual(a.searchOrder);
    expect(a.tables.post_search?.length).toBeGreaterThan(10);
    expect(a.tables.site_addresses?.length).toBeGreaterThan(10);
    // And the restored site reads as the original: the search finds what the creates indexed.
    const query = { q: "same title" };
    const found = (await oneByOne.posts.search(query)).results.map((result) => result.id);
    expect(found).toHaveLength(3);
    expect((await restored.posts.search(query)).results.map((result) => result.id)).toEqual(found);
  });

  it("writes a plain root as the step-by-step path writes it (Thread figures, search row)", async () => {
    const { engine: plain } = await openTestEngine({ now: NOW });
    const { engine: general } = await openTestEngine({ now: NOW });
    const site = await setUp(plain);
    await setUp(general);
    const plainInputs = inputs(site).filter(
      (input) => !input.replyToId && !input.collectionIds && !input.attachments && !input.path,
    );
    expect(plainInputs.length).toBeGreaterThan(8);
    for (const input of plainInputs) await plain.posts.create(input);
    const ctx = { ...general.context, settings: await general.siteSettings() };
    for (const input of plainInputs) {
      const plan = await planCreate(ctx, createPostInput.parse(input));
      expect(isPlainRoot(plan, [])).toBe(true);
      const id = ctx.ids.generate("pst");
      await ctx.db.transaction().execute((trx) => insertPost({ ...ctx, db: trx }, plan, [], id));
    }
    const [a, b] = [await snapshot(plain), await snapshot(general)];
    for (const table of Object.keys(a.tables)) expect(a.tables[table], table).toEqual(b.tables[table]);
    expect(a.searchOrder).toEqual(b.searchOrder);
  });

  it("answers each post as posts.get reads it (less collectionIds and threadPosition), for a plain root as for any other", async () => {
    const { engine } = await openTestEngine({ now: NOW });
    const site = await setUp(engine);
    for (const input of inputs(site)) {
      const created = await engine.posts.create(input);
      const {
        collectionIds: _collections,
        threadPosition: _position,
        ...read
      } = await engine.posts.get({
        id: created.id,
      });
      expect(read).toEqual(created);
    }
  });

  it("names the item in a validation error, for the schema's rules and the create rules alike", async () => {
    const { engine } = await openTestEngine({ now: NOW });
    const link = { format: "link", title: "No URL" } as const;
    const tooLong = { format: "note", title: "x".repeat(301) } as const;
    const ok = { format: "note", title: "Fine" } as const;

    const schemaError = await engine.posts.createMany({ posts: [ok, ok, tooLong] }).catch((err) => err);
    expect(schemaError).toBeInstanceOf(EngineError);
    expect(schemaError.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(schemaError.details.fieldErrors)).toEqual(["posts[2].title"]);

    const ruleError = await engine.posts.createMany({ posts: [ok, link] }).catch((err) => err);
    expect(ruleError.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(ruleError.details.fieldErrors)).toEqual(["posts[1].url"]);

    const bodyError = await engine.posts
      .createMany({ posts: [ok, { format: "note", body: '{"type":"paragraph"}' }] })
      .catch((err) => err);
    expect(Object.keys(bodyError.details.fieldErrors)).toEqual(["posts[1].body"]);
    expect((await engine.posts.list({})).posts).toEqual([]);
  });

  it("writes all or none: a failing item leaves no post, address or search row of the others", async () => {
    const { engine } = await openTestEngine({ now: NOW });
    await engine.posts.create({ format: "note", title: "Taken", slug: "taken" });
    const before = await snapshot(engine);
    const error = await engine.posts
      .createMany({
        posts: [
          { format: "note", title: "One" },
          { format: "note", title: "Two", replyToId: "pst_00000000000000000000000000" },
        ],
      })
      .catch((err) => err);
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toMatch(/^posts\[1\]: /);
    expect(
      await codeOf(
        engine.posts.createMany({
          posts: [{ format: "note", title: "One" }, { format: "note" }, { format: "note", slug: "taken" }],
        }),
      ),
    ).toBe("CONFLICT");
    expect(await snapshot(engine)).toEqual(before);
  });

  it("takes a thousand posts in one call and refuses more", async () => {
    const { engine } = await openTestEngine({ now: NOW });
    const many = Array.from({ length: 1000 }, (_, n) => ({
      format: "note" as const,
      bodyMarkdown: `Post ${n}`,
    }));
    const { posts } = await engine.posts.createMany({ posts: many });
    expect(new Set(posts.map((post) => post.slug)).size).toBe(1000);
    expect(posts[0]?.slug).toBe("post-0");
    const { posts: listed } = await engine.posts.list({ limit: 100 });
    expect(listed).toHaveLength(100);
    expect(await codeOf(engine.posts.createMany({ posts: [...many, { format: "note" }] }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.createMany({ posts: [] }))).toBe("VALIDATION_ERROR");
  });
});
