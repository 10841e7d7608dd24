import { beforeEach, describe, expect, it } from "vitest";
import { codeOf, useTestSite, walkPages } from "../../test/support.js";
import { publicCaller } from "../caller.js";
import { createEngine, type Engine } from "../engine.js";
import { encodeCursor } from "../shared/cursor.js";

const T = 1_700_000_000;

const site = useTestSite({ now: T + 10_000 });
let engine: Engine;
beforeEach(() => {
  ({ engine } = site);
});

type Extra = Record<string, unknown>;
async function root(title: string, at: number, extra: Extra = {}) {
  return engine.posts.create({
    format: "note",
    title,
    bodyMarkdown: `**${title}**`,
    publishedAt: at,
    createdAt: at,
    ...extra,
  });
}
async function reply(to: string, at: number, extra: Extra = {}) {
  return engine.posts.create({
    format: "note",
    bodyMarkdown: "reply",
    replyToId: to,
    publishedAt: at,
    createdAt: at,
    ...extra,
  });
}

/** A small site covering every order: see the expectations in each test. */
async function seed() {
  const a = await root("a", T + 100, { rating: 5 });
  const b = await root("b", T + 200, { pinned: true });
  const c = await root("c", T + 300, { rating: 3, featured: true });
  await reply(c.id, T + 400);
  const d = await root("d", T + 350);
  await reply(d.id, T + 500, { quietReply: true });
  const e = await root("e", T + 300, { rating: 5 });
  const f = await root("f", T + 250, { visibility: "latest_hidden", featured: true });
  const g = await root("g", T + 260, { visibility: "private" });
  const h = await engine.posts.create({ format: "note", title: "h", status: "draft", createdAt: T + 50 });
  return { a, b, c, d, e, f, g, h };
}

const ids = (page: { threads: { id: string }[] }) => page.threads.map((thread) => thread.id);

describe("Thread list orders (spec § Threads)", () => {
  it("activity: pinned on top, then newest activity; a reply moves its Thread, a quiet reply does not", async () => {
    const { a, b, c, d, e } = await seed();
    const page = await engine.publicThreads.list({}, publicCaller);
    expect(ids(page)).toEqual([b.id, c.id, d.id, e.id, a.id]);
    expect(page.nextCursor).toBeNull();
    expect(page.threads[1]).toEqual({
      id: c.id,
      postCount: 2,
      lastActivityAt: T + 400,
      threadUpdatedAt: T + 400,
      root: expect.objectContaining({ id: c.id, permalink: "/c", lastActivityAt: T + 400 }),
    });
    expect(page.threads[2]).toMatchObject({ lastActivityAt: T + 350, threadUpdatedAt: T + 500 });
  });

  it("published: newest root publication first, id breaking ties, replies and pins do not move it", async () => {
    const { a, b, c, d, e } = await seed();
    expect(ids(await engine.publicThreads.list({ sort: "published" }, publicCaller))).toEqual([
      d.id,
      e.id,
      c.id,
      b.id,
      a.id,
    ]);
  });

  it("updated: like activity with quiet replies, pins not lifted", async () => {
    const { a, b, c, d, e } = await seed();
    expect(ids(await engine.publicThreads.list({ sort: "updated" }, publicCaller))).toEqual([
      d.id,
      c.id,
      e.id,
      b.id,
      a.id,
    ]);
  });

  it("oldest: oldest root publication first", async () => {
    const { a, b, c, d, e } = await seed();
    expect(ids(await engine.publicThreads.list({ sort: "oldest" }, publicCaller))).toEqual([
      a.id,
      b.id,
      c.id,
      e.id,
      d.id,
    ]);
  });

  it("rating: highest rating first, then newest activity; unrated last; pins not lifted", async () => {
    const { a, b, c, d, e } = await seed();
    expect(ids(await engine.publicThreads.list({ sort: "rating" }, publicCaller))).toEqual([
      e.id,
      a.id,
      c.id,
      d.id,
      b.id,
    ]);
  });

  it("walks every order page by page, each Thread once, across the pinned and rated sections", async () => {
    const site = await seed();
    for (const sort of ["activity", "published", "updated", "oldest", "rating"] as const) {
      const full = ids(await engine.threads.list({ sort, visibility: "any" }));
      expect(full).toHaveLength(7);
      for (const limit of [1, 2, 3, 6, 7]) {
        const pages = await walkPages((cursor) =>
          engine.threads.list({ sort, visibility: "any", limit, cursor }),
        );
        expect(pages.flatMap(ids), `${sort} limit ${limit}`).toEqual(full);
        expect(pages.slice(0, -1).every((page) => page.threads.length === limit)).toBe(true);
        expect(pages.at(-1)?.nextCursor).toBeNull();
      }
    }
    expect(site.h.status).toBe("draft");
  });
});

describe("Thread list visibility (spec § Threads rules 1–3)", () => {
  it("public list: public only by default; any adds latest-hidden; hidden reads latest_hidden; private is a 400", async () => {
    const { a, b, c, d, e, f } = await seed();
    expect(ids(await engine.publicThreads.list({}, publicCaller))).toEqual([b.id, c.id, d.id, e.id, a.id]);
    expect(ids(await engine.publicThreads.list({ visibility: "public" }, publicCaller))).toEqual([
      b.id,
      c.id,
      d.id,
      e.id,
      a.id,
    ]);
    expect(ids(await engine.publicThreads.list({ visibility: "any" }, publicCaller))).toEqual([
      b.id,
      c.id,
      d.id,
      e.id,
      f.id,
      a.id,
    ]);
    const hidden = await engine.publicThreads.list({ visibility: "hidden" }, publicCaller);
    expect(ids(hidden)).toEqual([f.id]);
    expect(hidden.threads[0]?.root.visibility).toBe("latest_hidden");
    // The stored name is read as well as the URL spelling.
    expect(ids(await engine.publicThreads.list({ visibility: "latest_hidden" }, publicCaller))).toEqual([
      f.id,
    ]);
    for (const visibility of ["private", "all", "Public", ""]) {
      expect(await codeOf(engine.publicThreads.list({ visibility } as never, publicCaller)), visibility).toBe(
        "VALIDATION_ERROR",
      );
    }
  });

  it("owner list: every visibility by default, each one on request, drafts with status=draft", async () => {
    const { a, b, c, d, e, f, g, h } = await seed();
    expect(ids(await engine.threads.list({}))).toEqual([b.id, c.id, d.id, e.id, g.id, f.id, a.id]);
    expect(ids(await engine.threads.list({ visibility: "any" }))).toEqual([
      b.id,
      c.id,
      d.id,
      e.id,
      g.id,
      f.id,
      a.id,
    ]);
    expect(ids(await engine.threads.list({ visibility: "private" }))).toEqual([g.id]);
    expect(ids(await engine.threads.list({ visibility: "hidden" }))).toEqual([f.id]);
    expect(ids(await engine.threads.list({ visibility: "latest_hidden" }))).toEqual([f.id]);
    expect(ids(await engine.threads.list({ visibility: "public" }))).toEqual([b.id, c.id, d.id, e.id, a.id]);
    const drafts = await engine.threads.list({ status: "draft" });
    expect(ids(drafts)).toEqual([h.id]);
    expect(drafts.threads[0]).toMatchObject({ postCount: 0, root: { status: "draft", publishedAt: null } });
    expect(await codeOf(engine.threads.list({ visibility: "all" as never }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.threads.list({ status: "any" as never }))).toBe("VALIDATION_ERROR");
  });

  it("public list has no status: it is ignored and only published Threads are listed", async () => {
    const { h } = await seed();
    const page = await engine.publicThreads.list({ status: "draft" } as never, publicCaller);
    expect(ids(page)).not.toContain(h.id);
    expect(page.threads.every((thread) => thread.root.status === "published")).toBe(true);
  });

  it("featured lists newest-published first and refuses another sort", async () => {
    const { c, f } = await seed();
    expect(ids(await engine.publicThreads.list({ visibility: "featured" }, publicCaller))).toEqual([
      c.id,
      f.id,
    ]);
    expect(
      ids(await engine.publicThreads.list({ visibility: "featured", sort: "published" }, publicCaller)),
    ).toEqual([c.id, f.id]);
    expect(ids(await engine.threads.list({ visibility: "featured" }))).toEqual([c.id, f.id]);
    for (const sort of ["activity", "updated", "oldest", "rating"] as const) {
      const err = await engine.publicThreads
        .list({ visibility: "featured", sort }, publicCaller)
        .catch((x) => x);
      expect(err.code, sort).toBe("VALIDATION_ERROR");
      expect(err.details.fieldErrors).toHaveProperty("sort");
      expect(await codeOf(engine.threads.list({ visibility: "featured", sort }))).toBe("VALIDATION_ERROR");
    }
  });

  it("the public list needs no caller; the owner list refuses the public", async () => {
    await seed();
    expect(await codeOf(engine.publicThreads.list({}, publicCaller))).toBe("OK");
    expect(await codeOf(engine.threads.list({}, publicCaller))).toBe("UNAUTHORIZED");
  });
});

describe("Thread list filters", () => {
  it("format, title, replies and lang filter on the root", async () => {
    const note = await root("note", T + 100, { language: "en" });
    const link = await engine.posts.create({
      format: "link",
      title: "Link",
      url: "https://example.com",
      publishedAt: T + 200,
      language: "de",
    });
    const quote = await engine.posts.create({ format: "quote", quoteText: "Quoted", publishedAt: T + 300 });
    const untitled = await engine.posts.create({
      format: "note",
      bodyMarkdown: "no title",
      publishedAt: T + 400,
    });
    await reply(note.id, T + 500);
    await reply(link.id, T + 600, { status: "draft", publishedAt: undefined });
    const list = (input: Record<string, unknown>) =>
      engine.threads.list({ sort: "published", ...input }).then(ids);
    expect(await list({ format: "link" })).toEqual([link.id]);
    expect(await list({ format: "quote" })).toEqual([quote.id]);
    expect(await list({ title: "any" })).toEqual([link.id, note.id]);
    expect(await list({ title: "none" })).toEqual([untitled.id, quote.id]);
    // Only published replies count: the link's draft reply does not make it a conversation.
    expect(await list({ replies: "any" })).toEqual([note.id]);
    expect(await list({ replies: "none" })).toEqual([untitled.id, quote.id, link.id]);
    expect(await list({ lang: "de" })).toEqual([link.id]);
    expect(await list({ lang: "en", format: "note" })).toEqual([note.id]);
    expect(await list({ lang: "fr" })).toEqual([]);
    for (const bad of [
      { format: "poem" },
      { title: "some" },
      { replies: "yes" },
      { lang: "not a tag" },
      { sort: "new" },
    ]) {
      expect(await codeOf(engine.threads.list(bad as never)), JSON.stringify(bad)).toBe("VALIDATION_ERROR");
    }
  });

  it("media filters roots by attachment kind: a list, any, none", async () => {
    const image = await insertMedia("image");
    const video = await insertMedia("video");
    const withImage = await root("image", T + 100, { attachments: [{ type: "media", mediaId: image }] });
    const withVideoAndText = await root("video", T + 200, {
      attachments: [
        { type: "media", mediaId: video },
        { type: "text", content: "notes" },
      ],
    });
    const plain = await root("plain", T + 300);
    // A reply's attachment does not count: the filter is about roots.
    await reply(plain.id, T + 400, { attachments: [{ type: "text", content: "reply notes" }] });
    type Media = Parameters<typeof engine.threads.list>[0]["media"];
    const list = (media: Media) => engine.threads.list({ sort: "published", media }).then(ids);
    expect(await list(["image"])).toEqual([withImage.id]);
    expect(await list(["video"])).toEqual([withVideoAndText.id]);
    expect(await list(["text"])).toEqual([withVideoAndText.id]);
    expect(await list(["image", "text"])).toEqual([withVideoAndText.id, withImage.id]);
    expect(await list(["audio", "document"])).toEqual([]);
    expect(await list("any")).toEqual([withVideoAndText.id, withImage.id]);
    expect(await list("none")).toEqual([plain.id]);
    for (const media of ["picture", "image", ["picture"], ["any", "image"], [], ""]) {
      const code = await codeOf(engine.threads.list({ media } as never));
      expect(code, JSON.stringify(media)).toBe("VALIDATION_ERROR");
    }
  });

  it("year is the calendar year in the site's time zone", async () => {
    engine = createEngine({
      ...engine.context,
      dialect: engine.context.dialect.name,
      settings: { ...engine.context.settings, timeZone: "America/New_York" },
    });
    const newYearsEveInNewYork = Date.UTC(2024, 0, 1, 3) / 1000; // 22:00 on 31 Dec 2023 in New York
    const newYearInNewYork = Date.UTC(2024, 0, 1, 5) / 1000; // 00:00 on 1 Jan 2024 in New York
    const late2023 = await root("eve", newYearsEveInNewYork);
    const early2024 = await root("new-year", newYearInNewYork);
    const list = (year: unknown) => engine.threads.list({ year } as never).then(ids);
    expect(await list(2023)).toEqual([late2023.id]);
    expect(await list(2024)).toEqual([early2024.id]);
    expect(await list(2022)).toEqual([]);
    // In-process input is canonical: a year is a number, not its text (the HTTP edge converts).
    for (const year of ["2024", 1969, 10000, 2024.5]) {
      expect(await codeOf(engine.threads.list({ year } as never)), String(year)).toBe("VALIDATION_ERROR");
    }
  });

  it("an unknown collection slug gives an empty result", async () => {
    await seed();
    expect(await engine.publicThreads.list({ collection: ["nope"] }, publicCaller)).toEqual({
      threads: [],
      nextCursor: null,
    });
    expect(await engine.threads.list({ collection: ["a", "b"] })).toEqual({ threads: [], nextCursor: null });
  });
});

describe("Thread list parameters", () => {
  it("clamps limit to 1–100 and defaults to 20; in-process, text is not a number", async () => {
    for (let i = 0; i < 23; i++) await root(`t${i}`, T + i);
    expect((await engine.threads.list({})).threads).toHaveLength(20);
    expect((await engine.threads.list({ limit: 0 })).threads).toHaveLength(1);
    expect((await engine.threads.list({ limit: -5 })).threads).toHaveLength(1);
    expect((await engine.threads.list({ limit: 500 })).threads).toHaveLength(23);
    expect(await codeOf(engine.threads.list({ limit: "500" as never }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.threads.list({ limit: 2.5 }))).toBe("VALIDATION_ERROR");
  });

  it("adds the fold only with fold: true (include=fold is the HTTP spelling, converted at the edge)", async () => {
    const { c } = await seed();
    for (const input of [{}, { fold: false }, { include: "fold" }]) {
      const plain = await engine.threads.list(input as never);
      expect(
        plain.threads.every((thread) => !("fold" in thread)),
        JSON.stringify(input),
      ).toBe(true);
    }
    const page = await engine.threads.list({ fold: true });
    expect(page.threads.every((thread) => "fold" in thread)).toBe(true);
    expect(page.threads.find((thread) => thread.id === c.id)?.fold?.leading).toHaveLength(1);
    expect(await codeOf(engine.threads.list({ fold: "true" as never }))).toBe("VALIDATION_ERROR");
  });

  it("returns bodyMarkdown instead of the rendered fields with content=markdown", async () => {
    await seed();
    const page = await engine.threads.list({ content: "markdown", fold: true });
    const thread = page.threads.find((t) => t.root.title === "c");
    expect(thread?.root).toMatchObject({ bodyMarkdown: "**c**" });
    expect(thread?.root).not.toHaveProperty("bodyHtml");
    expect(thread?.fold?.leading[0]).toMatchObject({ bodyMarkdown: "reply" });
    expect(await codeOf(engine.threads.list({ content: "html" as never }))).toBe("VALIDATION_ERROR");
  });

  it("owner roots are in the editing view, public roots in the reading view", async () => {
    await seed();
    const owner = (await engine.threads.list({ limit: 1 })).threads[0];
    const reader = (await engine.publicThreads.list({ limit: 1 }, publicCaller)).threads[0];
    expect(Object.keys(owner ?? {}).sort()).toEqual([
      "id",
      "lastActivityAt",
      "postCount",
      "root",
      "threadUpdatedAt",
    ]);
    expect(owner?.root).toHaveProperty("body");
    expect(owner?.root).toHaveProperty("displayTitle");
    expect(owner?.root).not.toHaveProperty("permalink");
    expect(reader?.root).not.toHaveProperty("body");
    expect(reader?.root).not.toHaveProperty("displayTitle");
    expect(reader?.root).toMatchObject({
      permalink: "/b",
      status: "published",
      quietReply: false,
      collections: [],
    });
  });

  it("refuses unreadable cursors, cursors of another order and bare IDs", async () => {
    const { a } = await seed();
    const activity = (await engine.threads.list({ limit: 1 })).nextCursor as string;
    const published = (await engine.threads.list({ sort: "published", limit: 1 })).nextCursor as string;
    const posts = (await engine.posts.list({ limit: 1 })).nextCursor as string;
    const threadPosts = encodeCursor({ order: "threads.posts", keys: [0, 0, a.id] });
    const forged = encodeCursor({ order: "threads.published", keys: ["late", a.id] });
    expect(await codeOf(engine.threads.list({ cursor: activity }))).toBe("OK");
    for (const [cursor, input] of [
      ["garbage!", {}],
      ["eyJ4IjoxfQ", {}],
      [a.id, {}],
      ["med_01h2xcejqtf2nbrexx3vqjhp41", {}],
      [published, {}],
      [activity, { sort: "published" }],
      [activity, { sort: "rating" }],
      [published, { sort: "published", status: "draft" }],
      [posts, {}],
      [threadPosts, {}],
      [forged, { sort: "published" }],
    ] as const) {
      const err = await engine.threads.list({ cursor, ...input }).catch((x) => x);
      expect(err.code, `${cursor} ${JSON.stringify(input)}`).toBe("VALIDATION_ERROR");
      expect(err.details.fieldErrors).toHaveProperty("cursor");
    }
  });
});

let mediaCount = 0;
async function insertMedia(kind: string): Promise<string> {
  mediaCount += 1;
  const id = engine.context.ids.generate("med");
  await engine.context.db
    .insertInto("media")
    .values({
      id,
      type: "media",
      media_kind: kind,
      mime_type: kind === "image" ? "image/png" : "video/mp4",
      original_name: `file${mediaCount}`,
      size: 10,
      storage_key: `media/${id}`,
      created_at: T,
      updated_at: T,
    })
    .execute();
  return id;
}
