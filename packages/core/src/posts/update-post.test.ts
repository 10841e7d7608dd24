import { beforeEach, describe, expect, it } from "vitest";
import { codeOf, openTestEngine, type TestClock } from "../../test/support.js";
import type { Engine } from "../engine.js";

let engine: Engine;
let clock: TestClock;
const NOW = 1_700_000_000;

beforeEach(async () => {
  ({ engine, clock } = await openTestEngine({ now: NOW }));
});

describe("posts.update", () => {
  it("keeps omitted fields, clears nulls, and moves updatedAt", async () => {
    const post = await engine.posts.create({
      format: "note",
      title: "T",
      bodyMarkdown: "Body",
      summary: "S",
      rating: 3,
    });
    clock.advance(60);
    const updated = await engine.posts.update({ id: post.id, title: null, rating: 0 });
    expect(updated).toMatchObject({
      title: null,
      rating: null,
      summary: "S",
      bodyText: "Body",
      displayTitle: "Body",
      updatedAt: NOW + 60,
      createdAt: NOW,
      publishedAt: NOW,
      lastActivityAt: NOW,
    });
    const cleared = await engine.posts.update({ id: post.id, bodyMarkdown: null, rating: null });
    expect(cleared).toMatchObject({ body: null, bodyHtml: null, bodyText: null, rating: null });
  });

  it("checks fields against the format in the body, else the stored one", async () => {
    const note = await engine.posts.create({ format: "note", title: "N" });
    expect(await codeOf(engine.posts.update({ id: note.id, url: "https://x.example" }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.update({ id: note.id, format: "link" }))).toBe("VALIDATION_ERROR");
    const link = await engine.posts.update({ id: note.id, format: "link", url: "https://x.example" });
    expect(link).toMatchObject({ format: "link", title: "N", url: "https://x.example" });
    const quote = await engine.posts.update({ id: note.id, format: "quote", quoteText: "Q" });
    expect(quote).not.toHaveProperty("title");
    expect(quote).not.toHaveProperty("url");
    expect(quote.quoteText).toBe("Q");
    expect(await codeOf(engine.posts.update({ id: note.id, quoteText: null }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.update({ id: note.id, rating: 9 }))).toBe("VALIDATION_ERROR");
  });

  it("publishes and unpublishes; drafts cannot set publishedAt", async () => {
    const draft = await engine.posts.create({ format: "note", title: "D", status: "draft" });
    expect(await codeOf(engine.posts.update({ id: draft.id, publishedAt: NOW }))).toBe("VALIDATION_ERROR");
    clock.advance(100);
    const published = await engine.posts.update({ id: draft.id, status: "published" });
    expect(published).toMatchObject({
      status: "published",
      publishedAt: NOW + 100,
      threadPostCount: 1,
      lastActivityAt: NOW + 100,
    });
    const unpublished = await engine.posts.update({ id: draft.id, status: "draft" });
    expect(unpublished).toMatchObject({ status: "draft", publishedAt: null, threadPostCount: 0 });
    const dated = await engine.posts.update({
      id: draft.id,
      status: "published",
      publishedAt: 1_650_000_000,
    });
    expect(dated.publishedAt).toBe(1_650_000_000);
  });

  it("changes slug, pins, features and visibility", async () => {
    const post = await engine.posts.create({ format: "note", title: "First" });
    await engine.posts.create({ format: "note", slug: "other" });
    expect(await codeOf(engine.posts.update({ id: post.id, slug: "other" }))).toBe("CONFLICT");
    expect(await codeOf(engine.posts.update({ id: post.id, slug: "rss" }))).toBe("VALIDATION_ERROR");
    const moved = await engine.posts.update({
      id: post.id,
      slug: "renamed",
      pinned: true,
      featuredAt: 123,
      visibility: "latest_hidden",
    });
    expect(moved).toMatchObject({
      slug: "renamed",
      pinnedAt: NOW,
      featuredAt: 123,
      visibility: "latest_hidden",
    });
    expect((await engine.posts.slug({ mode: "check", slug: "first" })).available).toBe(true);
    const unpinned = await engine.posts.update({ id: post.id, pinned: false, featured: false });
    expect(unpinned).toMatchObject({ pinnedAt: null, featuredAt: null });
  });

  it("replaces, keeps and removes attachments", async () => {
    const post = await engine.posts.create({
      format: "note",
      title: "A",
      attachments: [
        { type: "text", content: "one" },
        { type: "text", content: "two" },
      ],
    });
    const [one, two] = post.attachments;
    const kept = await engine.posts.update({ id: post.id, title: "B" });
    expect(kept.attachments.map((a) => a.id)).toEqual([one?.id, two?.id]);
    const reordered = await engine.posts.update({
      id: post.id,
      attachments: [
        { type: "media", mediaId: two?.id as string },
        { type: "text", content: "three" },
      ],
    });
    expect(reordered.attachments.map((a) => a.id)[0]).toBe(two?.id);
    expect(reordered.attachments).toHaveLength(2);
    expect(await codeOf(engine.attachments.getContent({ id: one?.id as string }))).toBe("NOT_FOUND");
    const emptied = await engine.posts.update({ id: post.id, attachments: [] });
    expect(emptied.attachments).toEqual([]);
  });

  it("answers 404 for an unknown post and 400 for a malformed ID", async () => {
    expect(await codeOf(engine.posts.update({ id: "pst_01h2xcejqtf2nbrexx3vqjhp41", title: "x" }))).toBe(
      "NOT_FOUND",
    );
    expect(await codeOf(engine.posts.update({ id: "med_01h2xcejqtf2nbrexx3vqjhp41", title: "x" }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.update({ id: "nonsense", title: "x" }))).toBe("VALIDATION_ERROR");
  });
});

describe("replies", () => {
  it("inherit status, visibility and language; refuse pins and visibility changes", async () => {
    const root = await engine.posts.create({
      format: "note",
      title: "Root",
      visibility: "latest_hidden",
      language: "en",
    });
    clock.advance(10);
    const reply = await engine.posts.create({ format: "note", bodyMarkdown: "Reply", replyToId: root.id });
    expect(reply).toMatchObject({
      status: "published",
      visibility: "latest_hidden",
      language: "en",
      replyToId: root.id,
      threadId: root.id,
      threadPostCount: 2,
      lastActivityAt: NOW + 10,
    });
    expect(await engine.posts.get({ id: reply.id })).toMatchObject({ threadPosition: 2 });
    expect(await codeOf(engine.posts.create({ format: "note", replyToId: root.id, pinned: true }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.update({ id: reply.id, visibility: "public" }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(await codeOf(engine.posts.update({ id: reply.id, pinned: true }))).toBe("VALIDATION_ERROR");
    await engine.posts.update({ id: root.id, visibility: "private" });
    expect((await engine.posts.get({ id: reply.id })).visibility).toBe("private");
  });

  it("quiet replies move threadUpdatedAt but not lastActivityAt", async () => {
    const root = await engine.posts.create({ format: "note", title: "Root" });
    clock.advance(50);
    const quiet = await engine.posts.create({
      format: "note",
      bodyMarkdown: "shh",
      replyToId: root.id,
      quietReply: true,
    });
    expect(quiet).toMatchObject({
      quietReply: true,
      lastActivityAt: NOW,
      threadUpdatedAt: NOW + 50,
      threadPostCount: 2,
    });
  });

  it("stores each Thread figure that moves alone, and an edit that moves none leaves them", async () => {
    const root = await engine.posts.create({ format: "note", title: "Root" });
    clock.advance(10);
    const loud = await engine.posts.create({ format: "note", bodyMarkdown: "loud", replyToId: root.id });
    clock.advance(10);
    const quiet = await engine.posts.create({
      format: "note",
      bodyMarkdown: "shh",
      replyToId: root.id,
      quietReply: true,
    });
    const figures = async () => {
      const { threadPostCount, lastActivityAt, threadUpdatedAt } = await engine.posts.get({
        id: root.id,
      });
      return { threadPostCount, lastActivityAt, threadUpdatedAt };
    };
    const start = {
      threadPostCount: 3,
      lastActivityAt: NOW + 10,
      threadUpdatedAt: NOW + 20,
    };
    expect(await figures()).toEqual(start);
    // An edit of a body moves no figure.
    clock.advance(10);
    await engine.posts.update({ id: loud.id, bodyMarkdown: "louder" });
    expect(await figures()).toEqual(start);
    // The loud reply's time moves the activity alone (the quiet reply still holds the latest time).
    await engine.posts.update({ id: loud.id, publishedAt: NOW + 15 });
    expect(await figures()).toEqual({ ...start, lastActivityAt: NOW + 15 });
    // The quiet reply's time moves the Thread's update time alone.
    await engine.posts.update({ id: quiet.id, publishedAt: NOW + 22 });
    expect(await figures()).toEqual({ ...start, lastActivityAt: NOW + 15, threadUpdatedAt: NOW + 22 });
    await engine.posts.update({ id: quiet.id, publishedAt: NOW + 20 });
    // Past the quiet reply, it moves the Thread's update time too.
    await engine.posts.update({ id: loud.id, publishedAt: NOW + 25 });
    expect(await figures()).toEqual({ ...start, lastActivityAt: NOW + 25, threadUpdatedAt: NOW + 25 });
    // Back before the quiet reply: both move back.
    await engine.posts.update({ id: loud.id, publishedAt: NOW + 12 });
    expect(await figures()).toEqual({ ...start, lastActivityAt: NOW + 12 });
    // Unpublished: the counts move, and the activity falls back to the root.
    await engine.posts.update({ id: loud.id, status: "draft" });
    expect(await figures()).toEqual({
      ...start,
      threadPostCount: 2,
      lastActivityAt: NOW,
    });
  });

  it("deleting a root removes its replies and their attachments", async () => {
    const root = await engine.posts.create({ format: "note", title: "Root" });
    const reply = await engine.posts.create({
      format: "note",
      bodyMarkdown: "r",
      replyToId: root.id,
      attachments: [{ type: "text", content: "t" }],
    });
    expect(await engine.posts.delete({ id: root.id })).toEqual({ success: true });
    expect(await codeOf(engine.posts.get({ id: reply.id }))).toBe("NOT_FOUND");
    expect(await codeOf(engine.attachments.getContent({ id: reply.attachments[0]?.id as string }))).toBe(
      "NOT_FOUND",
    );
    expect((await engine.posts.slug({ mode: "check", slug: root.slug })).available).toBe(true);
  });

  it("deleting a reply updates the Thread figures", async () => {
    const root = await engine.posts.create({ format: "note", title: "Root" });
    const reply = await engine.posts.create({ format: "note", bodyMarkdown: "r", replyToId: root.id });
    await engine.posts.delete({ id: reply.id });
    expect((await engine.posts.get({ id: root.id })).threadPostCount).toBe(1);
  });
});
