import { beforeEach, describe, expect, it } from "vitest";
import { codeOf, useTestSite, walkPages } from "../../test/support.js";
import { publicCaller } from "../caller.js";
import type { Engine } from "../engine.js";

const T = 1_700_000_000;

const site = useTestSite({ now: T });
let engine: Engine;
let clock: (typeof site)["clock"];
beforeEach(() => {
  ({ engine, clock } = site);
});

const note = (extra: Record<string, unknown> = {}) => ({
  format: "note" as const,
  bodyMarkdown: "*text*",
  ...extra,
});
const MISSING = "pst_01h2xcejqtf2nbrexx3vqjhp41";

describe("GET /api/threads/:id (threads.get)", () => {
  it("returns the Thread of a root or of a reply, drafts and private Threads included", async () => {
    const root = await engine.posts.create(note({ title: "Root", visibility: "private" }));
    clock.advance(5);
    const reply = await engine.posts.create(note({ replyToId: root.id }));
    const draft = await engine.posts.create(note({ title: "Draft", status: "draft" }));
    const byRoot = await engine.threads.get({ id: root.id });
    expect(byRoot).toEqual({
      id: root.id,
      postCount: 2,
      lastActivityAt: T + 5,
      threadUpdatedAt: T + 5,
      root: expect.objectContaining({ id: root.id, visibility: "private", body: expect.any(String) }),
    });
    expect(await engine.threads.get({ id: reply.id })).toEqual(byRoot);
    expect(await engine.threads.get({ id: draft.id })).toMatchObject({ id: draft.id, postCount: 0 });
    expect(await codeOf(engine.threads.get({ id: MISSING }))).toBe("NOT_FOUND");
    expect(await codeOf(engine.threads.get({ id: "med_01h2xcejqtf2nbrexx3vqjhp41" }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.threads.get({ id: root.id }, publicCaller))).toBe("UNAUTHORIZED");
  });

  it("supports include=fold and content=markdown", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    await engine.posts.create(note({ replyToId: root.id, bodyMarkdown: "**reply**" }));
    const thread = await engine.threads.get({ id: root.id, fold: true, content: "markdown" });
    expect(thread.root).toMatchObject({ bodyMarkdown: "*text*" });
    expect(thread.root).not.toHaveProperty("body");
    expect(thread.fold?.leading[0]).toMatchObject({ bodyMarkdown: "**reply**" });
    expect(await engine.threads.get({ id: root.id })).not.toHaveProperty("fold");
  });
});

describe("GET /api/public/threads/:slug (publicThreads.get)", () => {
  it("returns the Thread of a published root or reply in the reading view; latest-hidden included", async () => {
    const root = await engine.posts.create(note({ title: "Hidden root", visibility: "latest_hidden" }));
    const reply = await engine.posts.create(note({ replyToId: root.id }));
    const thread = await engine.publicThreads.get({ slug: reply.slug, fold: true }, publicCaller);
    expect(thread).toMatchObject({
      id: root.id,
      postCount: 2,
      root: { id: root.id, visibility: "latest_hidden", permalink: "/hidden-root" },
      fold: { leading: [{ id: reply.id }], hidden: 0, gap: null, trailing: [] },
    });
    expect(thread.root).not.toHaveProperty("body");
    expect(await engine.publicThreads.get({ slug: root.slug }, publicCaller)).toMatchObject({ id: root.id });
  });

  it("answers 404 for drafts, private Threads and replies of unreadable roots", async () => {
    const draftRoot = await engine.posts.create(note({ title: "Draft", status: "draft" }));
    const privateRoot = await engine.posts.create(note({ title: "Private", visibility: "private" }));
    const privateReply = await engine.posts.create(note({ replyToId: privateRoot.id }));
    const publicRoot = await engine.posts.create(note({ title: "Public" }));
    const draftReply = await engine.posts.create(note({ replyToId: publicRoot.id, status: "draft" }));
    const draftRootReply = await engine.posts.create(note({ replyToId: draftRoot.id, status: "published" }));
    for (const post of [draftRoot, privateRoot, privateReply, draftReply, draftRootReply]) {
      expect(await codeOf(engine.publicThreads.get({ slug: post.slug }, publicCaller)), post.slug).toBe(
        "NOT_FOUND",
      );
      expect(await codeOf(engine.publicThreads.listPosts({ slug: post.slug }, publicCaller)), post.slug).toBe(
        "NOT_FOUND",
      );
    }
    expect(await codeOf(engine.publicThreads.get({ slug: "nothing-here" }, publicCaller))).toBe("NOT_FOUND");
  });
});

describe("Thread posts (threads.listPosts, publicThreads.listPosts)", () => {
  it("lists the root first, then replies by createdAt then ID; published by default", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    const b = await engine.posts.create(note({ replyToId: root.id, createdAt: T + 20 }));
    const a = await engine.posts.create(note({ replyToId: b.id, createdAt: T + 10 }));
    const restored = await engine.posts.create(note({ replyToId: root.id, createdAt: T - 50 }));
    const draft = await engine.posts.create(note({ replyToId: root.id, status: "draft", createdAt: T + 15 }));
    const owner = await engine.threads.listPosts({ id: a.id });
    expect(owner.posts.map((p) => p.id)).toEqual([root.id, restored.id, a.id, b.id]);
    expect(owner.nextCursor).toBeNull();
    expect(owner.posts[0]).toHaveProperty("body");
    const drafts = await engine.threads.listPosts({ id: root.id, status: "draft" });
    expect(drafts.posts.map((p) => p.id)).toEqual([draft.id]);
    const reader = await engine.publicThreads.listPosts(
      { slug: root.slug, status: "draft" } as never,
      publicCaller,
    );
    expect(reader.posts.map((p) => p.id)).toEqual([root.id, restored.id, a.id, b.id]);
    expect(reader.posts[1]).toMatchObject({ permalink: `/${restored.slug}` });
    expect(reader.posts[1]).not.toHaveProperty("body");
  });

  it("a draft root is listed with status=draft, and left out of the published posts", async () => {
    const root = await engine.posts.create(note({ title: "Root", status: "draft" }));
    const published = await engine.posts.create(note({ replyToId: root.id, status: "published" }));
    const draft = await engine.posts.create(note({ replyToId: root.id }));
    expect((await engine.threads.listPosts({ id: root.id })).posts.map((p) => p.id)).toEqual([published.id]);
    expect((await engine.threads.listPosts({ id: root.id, status: "draft" })).posts.map((p) => p.id)).toEqual(
      [root.id, draft.id],
    );
  });

  it("walks with cursors, any page size, and reaches a reply published during the walk", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    const all = [root.id];
    for (let i = 0; i < 9; i++) {
      clock.advance(i % 3 === 0 ? 1 : 0); // creation-time ties, broken by ID
      all.push((await engine.posts.create(note({ replyToId: root.id }))).id);
    }
    for (const limit of [1, 2, 4, 10, 11]) {
      const pages = await walkPages((cursor) => engine.threads.listPosts({ id: root.id, limit, cursor }));
      expect(
        pages.flatMap((page) => page.posts.map((p) => p.id)),
        `limit ${limit}`,
      ).toEqual(all);
      expect(pages.slice(0, -1).every((page) => page.posts.length === limit)).toBe(true);
    }
    const seen: string[] = [];
    let late: string | undefined;
    await walkPages(async (cursor) => {
      const page = await engine.publicThreads.listPosts({ slug: root.slug, limit: 3, cursor }, publicCaller);
      seen.push(...page.posts.map((p) => p.id));
      if (!late) late = (await engine.posts.create(note({ replyToId: root.id }))).id;
      return page;
    });
    expect(seen).toEqual([...all, late]);
  });

  it("defaults limit to 100 and clamps it to 1–100", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    const values = Array.from({ length: 101 }, (_, i) => i);
    for (const i of values) await engine.posts.create(note({ replyToId: root.id, createdAt: T + i }));
    const first = await engine.threads.listPosts({ id: root.id });
    expect(first.posts).toHaveLength(100);
    expect(first.nextCursor).not.toBeNull();
    expect((await engine.threads.listPosts({ id: root.id, limit: 1000 })).posts).toHaveLength(100);
    expect((await engine.threads.listPosts({ id: root.id, limit: 0 })).posts).toHaveLength(1);
    const rest = await engine.threads.listPosts({ id: root.id, cursor: first.nextCursor ?? undefined });
    expect(rest.posts).toHaveLength(2);
    expect(rest.nextCursor).toBeNull();
  });

  it("refuses cursors of other lists, unreadable cursors and bare IDs", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    await engine.posts.create(note({ title: "Other" }));
    const threadsCursor = (await engine.threads.list({ limit: 1 })).nextCursor as string;
    for (const cursor of [threadsCursor, "garbage!", root.id, "med_01h2xcejqtf2nbrexx3vqjhp41", "e30"]) {
      const err = await engine.threads.listPosts({ id: root.id, cursor }).catch((x) => x);
      expect(err.code, cursor).toBe("VALIDATION_ERROR");
      expect(await codeOf(engine.publicThreads.listPosts({ slug: root.slug, cursor }, publicCaller))).toBe(
        "VALIDATION_ERROR",
      );
    }
    expect(await codeOf(engine.threads.listPosts({ id: MISSING }))).toBe("NOT_FOUND");
    expect(await codeOf(engine.threads.listPosts({ id: root.id, status: "all" as never }))).toBe(
      "VALIDATION_ERROR",
    );
  });
});
