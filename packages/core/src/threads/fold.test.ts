import type { KyselyPlugin } from "kysely";
import { beforeEach, describe, expect, it } from "vitest";
import { useTestSite } from "../../test/support.js";
import { publicCaller } from "../caller.js";
import { createEngine, type Engine } from "../engine.js";

const T = 1_700_000_000;

const site = useTestSite({ now: T });
let engine: Engine;
let clock: (typeof site)["clock"];
beforeEach(() => {
  ({ engine, clock } = site);
});

/** A published root with `n` published replies, one second apart; returns the root and replies. */
async function threadWith(n: number, title = `thread-${n}`) {
  const root = await engine.posts.create({ format: "note", title });
  const replies = [];
  for (let i = 0; i < n; i++) {
    clock.advance(1);
    replies.push(
      await engine.posts.create({ format: "note", bodyMarkdown: `${title} reply ${i}`, replyToId: root.id }),
    );
  }
  return { root, replies };
}

/** The site's engine with every executed statement counted (subqueries are part of their statement). */
function countingEngine(): { engine: Engine; count: { queries: number } } {
  const count = { queries: 0 };
  const counter: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      count.queries += 1;
      return args.result;
    },
  };
  const counted = createEngine({
    ...engine.context,
    dialect: engine.context.dialect.name,
    db: engine.context.db.withPlugin(counter),
  });
  return { engine: counted, count };
}

describe("fold (spec § Fold)", () => {
  it("keeps the first 2 and last 3 published replies and counts the rest", async () => {
    const expected: Record<number, [number, number, number]> = {
      0: [0, 0, 0],
      1: [1, 0, 0],
      2: [2, 0, 0],
      3: [2, 1, 0],
      5: [2, 3, 0],
      6: [2, 3, 1],
      9: [2, 3, 4],
    };
    for (const [count, [leading, trailing, hidden]] of Object.entries(expected)) {
      const { root, replies } = await threadWith(Number(count));
      const thread = await engine.threads.get({ id: root.id, fold: true });
      const fold = thread.fold;
      expect(
        fold?.leading.map((p) => p.id),
        `${count} replies`,
      ).toEqual(replies.slice(0, leading).map((p) => p.id));
      expect(fold?.trailing.map((p) => p.id)).toEqual(
        replies.slice(replies.length - trailing).map((p) => p.id),
      );
      expect(fold?.hidden).toBe(hidden);
      expect(1 + leading + trailing + hidden).toBe(thread.postCount);
      if (hidden === 0) expect(fold?.gap).toBeNull();
      else {
        expect(fold?.gap).toEqual({ id: replies[2]?.id, slug: replies[2]?.slug, cursor: expect.any(String) });
      }
    }
  });

  it("shows published replies only, quiet ones included, on both views", async () => {
    const { root, replies } = await threadWith(2);
    clock.advance(1);
    await engine.posts.create({ format: "note", bodyMarkdown: "draft", replyToId: root.id, status: "draft" });
    clock.advance(1);
    const quiet = await engine.posts.create({
      format: "note",
      bodyMarkdown: "q",
      replyToId: root.id,
      quietReply: true,
    });
    const owner = await engine.threads.get({ id: root.id, fold: true });
    const reader = await engine.publicThreads.get({ slug: root.slug, fold: true }, publicCaller);
    for (const thread of [owner, reader]) {
      expect(thread.fold?.leading.map((p) => p.id)).toEqual(replies.map((p) => p.id));
      expect(thread.fold?.trailing.map((p) => p.id)).toEqual([quiet.id]);
      expect(thread.fold?.hidden).toBe(0);
      expect(thread.postCount).toBe(4);
    }
    expect(owner.fold?.trailing[0]).toMatchObject({ quietReply: true, status: "published" });
    expect(owner.fold?.trailing[0]).toHaveProperty("body");
    expect(reader.fold?.trailing[0]).toMatchObject({ permalink: `/${quiet.slug}` });
    expect(reader.fold?.trailing[0]).not.toHaveProperty("body");
  });

  it("gap.cursor with limit=hidden loads exactly the hidden replies, on both surfaces", async () => {
    const { root, replies } = await threadWith(12);
    const owner = await engine.threads.get({ id: root.id, fold: true });
    const hidden = owner.fold?.hidden as number;
    expect(hidden).toBe(7);
    const expected = replies.slice(2, 9).map((p) => p.id);
    const ownerPage = await engine.threads.listPosts({
      id: root.id,
      cursor: owner.fold?.gap?.cursor,
      limit: hidden,
    });
    expect(ownerPage.posts.map((p) => p.id)).toEqual(expected);

    const reader = await engine.publicThreads.get({ slug: root.slug, fold: true }, publicCaller);
    expect(reader.fold?.gap).toEqual({
      id: replies[2]?.id,
      slug: replies[2]?.slug,
      cursor: owner.fold?.gap?.cursor,
      permalink: `/${replies[2]?.slug}`,
    });
    const readerPage = await engine.publicThreads.listPosts(
      { slug: root.slug, cursor: reader.fold?.gap?.cursor, limit: hidden },
      publicCaller,
    );
    expect(readerPage.posts.map((p) => p.id)).toEqual(expected);
  });

  it("holds for every Thread of a list page, read in a fixed number of queries", async () => {
    const small = await threadWith(7, "small");
    const { engine: counted, count } = countingEngine();
    // The site settings are read once and handed to each call, as the HTTP handler does, so only
    // the list's own queries are counted (not the version read, nor a settings read after a
    // settings write; docs/settings.md § Caching).
    const settings = await counted.siteSettings();
    const readPage = async () => {
      count.queries = 0;
      const page = await counted.execute("publicThreads.list", { fold: true, limit: 100 }, publicCaller, {
        settings,
      });
      return { page, queries: count.queries };
    };
    const few = await readPage();
    for (let i = 0; i < 12; i++) await threadWith(i % 8, `more-${i}`);
    await engine.posts.update({ id: small.root.id, pinned: true });
    const many = await readPage();
    expect(many.page.threads).toHaveLength(13);
    expect(many.queries).toBe(few.queries);
    // The page, the folds, the attachments, the readable parents and the Threads' collections (their
    // custom URLs are read only when some Thread is in a collection).
    expect(many.queries).toBeLessThanOrEqual(6);
    for (const thread of many.page.threads) {
      const fold = thread.fold;
      expect(fold).toBeDefined();
      if (!fold) continue;
      expect(1 + fold.leading.length + fold.trailing.length + fold.hidden).toBe(thread.postCount);
      const all = await engine.publicThreads.listPosts({ slug: thread.root.slug }, publicCaller);
      const replyIds = all.posts.slice(1).map((p) => p.id);
      expect(fold.leading.map((p) => p.id)).toEqual(replyIds.slice(0, fold.leading.length));
      expect(fold.trailing.map((p) => p.id)).toEqual(replyIds.slice(replyIds.length - fold.trailing.length));
    }
  });
});

describe("statements a public list page skips (issue 13)", () => {
  it("reads collections and readable parents only when the page's rows need them, with the same answer", async () => {
    const { root, replies } = await threadWith(2);
    clock.advance(1);
    // A reply to a published reply: its parent is readable as it is.
    const nested = await engine.posts.create({
      format: "note",
      bodyMarkdown: "nested",
      replyToId: replies[0]?.id as string,
    });
    const { engine: counted, count } = countingEngine();
    const readPage = async () => {
      const settings = await counted.siteSettings();
      count.queries = 0;
      const page = await counted.execute("publicThreads.list", { fold: true }, publicCaller, { settings });
      const thread = page.threads.find((t) => t.id === root.id);
      const shown = [...(thread?.fold?.leading ?? []), ...(thread?.fold?.trailing ?? [])];
      return { queries: count.queries, thread, shown };
    };

    const plain = await readPage();
    expect(plain.shown.find((p) => p.id === nested.id)?.replyToId).toBe(replies[0]?.id);
    expect(plain.thread?.root.collections).toEqual([]);

    // A published reply to a draft reply: now its readable parent (the root) is looked up.
    clock.advance(1);
    const draft = await engine.posts.create({
      format: "note",
      bodyMarkdown: "draft",
      replyToId: root.id,
      status: "draft",
    });
    clock.advance(1);
    const underDraft = await engine.posts.create({ format: "note", bodyMarkdown: "x", replyToId: draft.id });
    const withDraftParent = await readPage();
    expect(withDraftParent.shown.find((p) => p.id === underDraft.id)?.replyToId).toBe(root.id);
    expect(withDraftParent.shown.find((p) => p.id === nested.id)?.replyToId).toBe(replies[0]?.id);
    expect(withDraftParent.queries).toBe(plain.queries + 1);

    // In a collection: now the page's collections are read (the memberships, then the collections'
    // custom URLs; before, not even the first).
    const collection = await engine.collections.create({ slug: "topic", title: "Topic" });
    await engine.posts.update({ id: root.id, collectionIds: [collection.id] });
    const inCollection = await readPage();
    expect(inCollection.thread?.root.collections).toEqual([
      { id: collection.id, slug: "topic", title: "Topic", url: "/topic" },
    ]);
    expect(inCollection.queries).toBe(withDraftParent.queries + 2);
  });
});

describe("the public list's rows (issue 13)", () => {
  it("show every post as the single public post read does, with either content", async () => {
    const pinned = await engine.posts.create({
      format: "note",
      title: "Pinned",
      bodyMarkdown: "**pinned**",
      summary: "A summary",
      rating: 4,
      language: "de",
      pinned: true,
      featured: true,
    });
    clock.advance(1);
    const link = await engine.posts.create({
      format: "link",
      title: "A link",
      url: "https://example.com/a",
      bodyMarkdown: "about it",
      attachments: [{ type: "text", content: "notes" }],
    });
    clock.advance(1);
    const quote = await engine.posts.create({
      format: "quote",
      quoteText: "Said",
      sourceName: "Someone",
      sourceUrl: "https://example.com/s",
    });
    const replies: { id: string }[] = [];
    for (let i = 0; i < 7; i++) {
      clock.advance(1);
      replies.push(
        await engine.posts.create({
          format: i === 3 ? "link" : "note",
          ...(i === 3 ? { url: "https://example.com/r", title: "Reply link" } : {}),
          bodyMarkdown: `reply _${i}_`,
          replyToId: i === 6 ? (replies[5]?.id as string) : link.id,
          quietReply: i === 5,
          rating: i === 4 ? 2 : null,
        }),
      );
    }
    // Custom URLs are the posts' permalinks.
    await engine.customUrls.create({ path: "/old/link", targetType: "post", targetId: link.id });
    await engine.customUrls.create({
      path: "/old/reply",
      targetType: "post",
      targetId: replies[6]?.id as string,
    });
    for (const content of [undefined, "markdown"] as const) {
      const page = await engine.publicThreads.list({ fold: true, content }, publicCaller);
      expect(page.threads[1]?.root.permalink).toBe("/old/link");
      expect(page.threads.map((thread) => thread.id)).toEqual([pinned.id, link.id, quote.id]);
      const shown = page.threads.flatMap((thread) => [
        thread.root,
        ...(thread.fold?.leading ?? []),
        ...(thread.fold?.trailing ?? []),
      ]);
      expect(shown).toHaveLength(3 + 5);
      for (const post of shown) {
        const single = await engine.publicPosts.get({ slug: post.slug, content }, publicCaller);
        expect(post, `${post.slug} ${content}`).toEqual(single);
      }
      const single = await engine.publicThreads.get({ slug: link.slug, fold: true, content }, publicCaller);
      expect(page.threads[1]).toEqual(single);
    }
  });
});
