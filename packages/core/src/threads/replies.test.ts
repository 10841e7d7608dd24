import { beforeEach, describe, expect, it } from "vitest";
import { codeOf, useTestSite } from "../../test/support.js";
import type { Engine } from "../engine.js";

const NOW = 1_700_000_000;

const site = useTestSite({ now: NOW });
let engine: Engine;
let clock: (typeof site)["clock"];
beforeEach(() => {
  ({ engine, clock } = site);
});

const note = (extra: Record<string, unknown> = {}) => ({
  format: "note" as const,
  bodyMarkdown: "text",
  ...extra,
});

describe("replies (spec § States)", () => {
  it("answer the root or another reply; threadId is always the root's", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    const reply = await engine.posts.create(note({ replyToId: root.id }));
    const nested = await engine.posts.create(note({ replyToId: reply.id }));
    expect(reply).toMatchObject({ replyToId: root.id, threadId: root.id });
    expect(nested).toMatchObject({ replyToId: reply.id, threadId: root.id, threadPostCount: 3 });
    expect(await codeOf(engine.posts.create(note({ replyToId: "pst_01h2xcejqtf2nbrexx3vqjhp41" })))).toBe(
      "NOT_FOUND",
    );
    expect(await codeOf(engine.posts.create(note({ replyToId: "med_01h2xcejqtf2nbrexx3vqjhp41" })))).toBe(
      "VALIDATION_ERROR",
    );
  });

  it("inherit the root's status when it is omitted; an explicit draft is allowed", async () => {
    const published = await engine.posts.create(note({ title: "P" }));
    const draftRoot = await engine.posts.create(note({ title: "D", status: "draft" }));
    expect((await engine.posts.create(note({ replyToId: published.id }))).status).toBe("published");
    const nestedInDraft = await engine.posts.create(note({ replyToId: draftRoot.id }));
    expect(nestedInDraft).toMatchObject({ status: "draft", publishedAt: null });
    // A reply of a reply inherits the root's status, not its parent's.
    const draftReply = await engine.posts.create(note({ replyToId: published.id, status: "draft" }));
    expect(draftReply).toMatchObject({ status: "draft", publishedAt: null });
    expect((await engine.posts.create(note({ replyToId: draftReply.id }))).status).toBe("published");
  });

  it("take the visibility of the root, now and after the root changes", async () => {
    const root = await engine.posts.create(note({ title: "Root", visibility: "latest_hidden" }));
    const reply = await engine.posts.create(note({ replyToId: root.id }));
    expect(reply.visibility).toBe("latest_hidden");
    expect(await codeOf(engine.posts.create(note({ replyToId: root.id, visibility: "public" })))).toBe(
      "VALIDATION_ERROR",
    );
    await engine.posts.update({ id: root.id, visibility: "private" });
    expect((await engine.posts.get({ id: reply.id })).visibility).toBe("private");
    const thread = await engine.threads.get({ id: reply.id, fold: true });
    expect(thread.root.visibility).toBe("private");
    expect(thread.fold?.leading[0]?.visibility).toBe("private");
    // The reading surface follows the root too: a private Thread's reply is not readable.
    expect(await codeOf(engine.publicPosts.get({ slug: reply.slug }, { role: "public" }))).toBe("NOT_FOUND");
  });

  it("cannot be pinned, on create or update, and refuse visibility changes", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    expect(await codeOf(engine.posts.create(note({ replyToId: root.id, pinned: true })))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.create(note({ replyToId: root.id, pinnedAt: NOW })))).toBe(
      "VALIDATION_ERROR",
    );
    const reply = await engine.posts.create(note({ replyToId: root.id, pinned: false }));
    expect(reply.pinnedAt).toBeNull();
    for (const change of [
      { visibility: "public" },
      { visibility: "private" },
      { pinned: true },
      { pinned: false },
    ] as const) {
      const err = await engine.posts.update({ id: reply.id, ...change }).catch((e) => e);
      expect(err.code, JSON.stringify(change)).toBe("VALIDATION_ERROR");
      expect(Object.keys(err.details.fieldErrors)).toEqual([Object.keys(change)[0]]);
    }
    expect(await engine.posts.get({ id: reply.id })).toMatchObject({ visibility: "public", pinnedAt: null });
  });

  it("refuse non-empty collection input on creation", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    const collectionId = "col_01h2xcejqtf2nbrexx3vqjhp41";
    for (const input of [{ collectionIds: [collectionId] }, { collectionEntries: [{ collectionId }] }]) {
      const err = await engine.posts.create(note({ replyToId: root.id, ...input })).catch((e) => e);
      expect(err.code).toBe("VALIDATION_ERROR");
      expect(err.details.fieldErrors).toHaveProperty("collectionIds");
    }
    expect(await codeOf(engine.posts.create(note({ replyToId: root.id, collectionIds: [] })))).toBe("OK");
  });

  it("mark quiet replies; a root is never quiet", async () => {
    const root = await engine.posts.create(note({ title: "Root", quietReply: true }));
    expect(root.quietReply).toBe(false);
    const quiet = await engine.posts.create(note({ replyToId: root.id, quietReply: true }));
    expect(quiet.quietReply).toBe(true);
    const loud = await engine.posts.create(note({ replyToId: root.id }));
    expect(loud.quietReply).toBe(false);
  });

  it("share one language across the Thread", async () => {
    const root = await engine.posts.create(note({ title: "Root", language: "en" }));
    const reply = await engine.posts.create(note({ replyToId: root.id, language: "de" }));
    expect(reply.language).toBe("en");
    await engine.posts.update({ id: reply.id, language: "fr" });
    expect((await engine.posts.get({ id: root.id })).language).toBe("fr");
    expect((await engine.posts.get({ id: reply.id })).language).toBe("fr");
  });

  it("go with their root, attachments and replies of replies included", async () => {
    const root = await engine.posts.create(
      note({ title: "Root", attachments: [{ type: "text", content: "a" }] }),
    );
    const reply = await engine.posts.create(
      note({ replyToId: root.id, attachments: [{ type: "text", content: "b" }] }),
    );
    const nested = await engine.posts.create(
      note({ replyToId: reply.id, attachments: [{ type: "text", content: "c" }] }),
    );
    const other = await engine.posts.create(note({ title: "Other" }));
    await engine.posts.delete({ id: root.id });
    for (const post of [root, reply, nested]) {
      expect(await codeOf(engine.posts.get({ id: post.id }))).toBe("NOT_FOUND");
      const attachmentId = post.attachments[0]?.id as string;
      expect(await codeOf(engine.attachments.getContent({ id: attachmentId }))).toBe("NOT_FOUND");
    }
    const { threads } = await engine.threads.list({});
    expect(threads.map((t) => t.id)).toEqual([other.id]);
  });
});

describe("Thread figures (spec § Post, Thread fields)", () => {
  it("count published posts only, 0 while nothing is published", async () => {
    const root = await engine.posts.create(note({ title: "Root", status: "draft" }));
    expect(root.threadPostCount).toBe(0);
    const draftReply = await engine.posts.create(note({ replyToId: root.id }));
    expect(draftReply.threadPostCount).toBe(0);
    await engine.posts.update({ id: root.id, status: "published" });
    expect((await engine.posts.get({ id: root.id })).threadPostCount).toBe(1);
    await engine.posts.update({ id: draftReply.id, status: "published" });
    expect((await engine.posts.get({ id: root.id })).threadPostCount).toBe(2);
    const thread = await engine.threads.get({ id: root.id });
    expect(thread.postCount).toBe(2);
  });

  it("move activity when the Thread gains a published post, not for quiet replies, drafts or edits", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    expect(root).toMatchObject({ lastActivityAt: NOW, threadUpdatedAt: NOW });
    clock.set(NOW + 10);
    await engine.posts.create(note({ replyToId: root.id, quietReply: true }));
    expect(await figures(root.id)).toEqual({ lastActivityAt: NOW, threadUpdatedAt: NOW + 10, postCount: 2 });
    clock.set(NOW + 20);
    const draft = await engine.posts.create(note({ replyToId: root.id, status: "draft" }));
    expect(await figures(root.id)).toEqual({ lastActivityAt: NOW, threadUpdatedAt: NOW + 10, postCount: 2 });
    clock.set(NOW + 30);
    const reply = await engine.posts.create(note({ replyToId: root.id }));
    expect(await figures(root.id)).toEqual({
      lastActivityAt: NOW + 30,
      threadUpdatedAt: NOW + 30,
      postCount: 3,
    });
    // Edits of the root or a reply (body, title, rating, attachments) never move the figures.
    clock.set(NOW + 40);
    await engine.posts.update({ id: root.id, title: "Edited", rating: 4 });
    await engine.posts.update({
      id: reply.id,
      bodyMarkdown: "edited",
      attachments: [{ type: "text", content: "x" }],
    });
    expect(await figures(root.id)).toEqual({
      lastActivityAt: NOW + 30,
      threadUpdatedAt: NOW + 30,
      postCount: 3,
    });
    expect((await engine.posts.get({ id: root.id })).updatedAt).toBe(NOW + 40);
    // Publishing the draft is the Thread gaining a published post.
    clock.set(NOW + 50);
    await engine.posts.update({ id: draft.id, status: "published" });
    expect(await figures(root.id)).toEqual({
      lastActivityAt: NOW + 50,
      threadUpdatedAt: NOW + 50,
      postCount: 4,
    });
  });

  it("place the root first and replies by createdAt then ID (threadPosition)", async () => {
    const root = await engine.posts.create(note({ title: "Root" }));
    const late = await engine.posts.create(note({ replyToId: root.id, createdAt: NOW + 100 }));
    // Restored replies: one created before its root, two sharing a creation time.
    const early = await engine.posts.create(note({ replyToId: root.id, createdAt: NOW - 100 }));
    const tieA = await engine.posts.create(note({ replyToId: late.id, createdAt: NOW + 50 }));
    const tieB = await engine.posts.create(note({ replyToId: root.id, createdAt: NOW + 50 }));
    const positions = await Promise.all(
      [root, early, tieA, tieB, late].map(
        async (post) => (await engine.posts.get({ id: post.id })).threadPosition,
      ),
    );
    expect(positions).toEqual([1, 2, 3, 4, 5]);
    const { posts } = await engine.threads.listPosts({ id: root.id });
    expect(posts.map((p) => p.id)).toEqual([root.id, early.id, tieA.id, tieB.id, late.id]);
  });
});

async function figures(id: string) {
  const thread = await engine.threads.get({ id });
  const root = await engine.posts.get({ id });
  expect(root).toMatchObject({
    lastActivityAt: thread.lastActivityAt,
    threadUpdatedAt: thread.threadUpdatedAt,
    threadPostCount: thread.postCount,
  });
  return {
    lastActivityAt: thread.lastActivityAt,
    threadUpdatedAt: thread.threadUpdatedAt,
    postCount: thread.postCount,
  };
}
