import { describe, expect, it } from "vitest";
import { codeOf, openTestEngine, walkPages } from "../../test/support.js";
import { bytes, openUploadSite } from "../../test/upload-site.js";
import { internalCaller, ownerCaller } from "../caller.js";
import type { Engine } from "../engine.js";
import { renderMarkdown } from "../render/index.js";
import { rebuildBodyHtml } from "./rebuild-body-html.js";

const DAY = 24 * 60 * 60;

describe("tokens.health and tokens.purge", () => {
  it("count active, stale and never-used tokens, and purge only those unused for unusedDays", async () => {
    const { engine, clock } = await openTestEngine();
    const start = clock.now();
    const old = await engine.tokens.create({ name: "old, never used" });
    clock.set(start + 10 * DAY);
    const usedLongAgo = await engine.tokens.create({ name: "used long ago" });
    await engine.verifyApiToken(usedLongAgo.token);
    clock.set(start + 100 * DAY);
    const recent = await engine.tokens.create({ name: "recent, never used" });
    const active = await engine.tokens.create({ name: "in use" });
    await engine.verifyApiToken(active.token);
    // verifyApiToken records use at creation time already for a fresh token: set it back to never.
    await engine.context.db
      .updateTable("api_tokens")
      .set({ last_used_at: null })
      .where("id", "in", [old.id, recent.id])
      .execute();
    clock.set(start + 120 * DAY);

    expect(await engine.tokens.health({ staleDays: 30 })).toEqual({
      total: 4,
      active: 2,
      stale: 2,
      neverUsed: 2,
      staleDays: 30,
      staleBefore: start + 90 * DAY,
      oldestCreatedAt: start,
      oldestLastUsedAt: start + 10 * DAY,
      newestLastUsedAt: start + 100 * DAY,
    });
    expect((await engine.tokens.health({})).staleDays).toBe(90);

    const dry = await engine.tokens.purge({ unusedDays: 30, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, purged: 2 });
    expect(dry.tokens.map((token) => token.id)).toEqual([old.id, usedLongAgo.id]);
    expect(dry.tokens[0]).not.toHaveProperty("token");
    expect((await engine.tokens.list({})).tokens).toHaveLength(4);

    const purged = await engine.tokens.purge({ unusedDays: 30 });
    expect(purged).toEqual({ ...dry, dryRun: false });
    const left = (await engine.tokens.list({})).tokens.map((token) => token.id);
    expect(left.sort()).toEqual([recent.id, active.id].sort());
    expect(await engine.verifyApiToken(old.token)).toBeNull();
    expect(await engine.verifyApiToken(active.token)).not.toBeNull();
    expect((await engine.tokens.purge({ unusedDays: 30 })).purged).toBe(0);
  });

  it("refuse bad input and callers other than the internal admin, deleting nothing", async () => {
    const { engine } = await openTestEngine();
    await engine.tokens.create({ name: "kept" });
    expect(await codeOf(engine.tokens.purge({} as never))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.tokens.purge({ unusedDays: 0 }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.tokens.purge({ unusedDays: 1.5 }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.tokens.purge({ unusedDays: 1 }, ownerCaller))).toBe("FORBIDDEN");
    expect(await codeOf(engine.tokens.health({ staleDays: -1 }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.tokens.health({}, ownerCaller))).toBe("FORBIDDEN");
    expect((await engine.tokens.list({}, internalCaller)).tokens).toHaveLength(1);
  });
});

describe("uploads.cleanup", () => {
  it("expires stale sessions and sweeps orphaned files, answering what it did", async () => {
    const site = await openUploadSite();
    const { engine, clock, storage } = site;
    const session = await engine.uploads.init({
      filename: "a.bin",
      contentType: "application/octet-stream",
      size: 4,
    });
    await engine.uploads.putBody({ id: session.id, body: bytes(4) });
    storage.objects.set("media/2023/11/med_01j0000000e00800000000dead/lost.bin", {
      bytes: bytes(4),
      contentType: "application/octet-stream",
      modifiedAt: clock.now(),
    });
    expect(await engine.uploads.cleanup({})).toEqual({ expired: 0, removed: 0, swept: 0 });
    clock.set(clock.now() + 2 * 60 * 60);
    expect(await engine.uploads.cleanup({ sweep: false })).toEqual({ expired: 1, removed: 0, swept: 0 });
    expect(await engine.uploads.cleanup({})).toEqual({ expired: 0, removed: 0, swept: 1 });
    expect([...storage.objects.keys()]).toEqual([]);
    clock.set(clock.now() + 2 * DAY);
    expect(await engine.uploads.cleanup({})).toEqual({ expired: 0, removed: 1, swept: 0 });
    expect(await codeOf(engine.uploads.cleanup({ sweep: "yes" } as never))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.uploads.cleanup({}, ownerCaller))).toBe("FORBIDDEN");
  });
});

async function searchRows(engine: Engine): Promise<string[]> {
  const rows = await engine.context.db
    .selectFrom("post_search")
    .select("post_id")
    .orderBy("post_id")
    .execute();
  return rows.map((row) => row.post_id);
}

describe("search.reindex", () => {
  it("rewrites the index batch by batch from the posts as they stand", async () => {
    const { engine } = await openTestEngine();
    const a = await engine.posts.create({ format: "note", title: "Harbour lights", bodyMarkdown: "Boats." });
    const b = await engine.posts.create({ format: "note", title: "Mountain", bodyMarkdown: "Snow." });
    const draft = await engine.posts.create({
      format: "note",
      title: "Hidden",
      bodyMarkdown: "Draft.",
      status: "draft",
    });
    const c = await engine.posts.create({
      format: "note",
      bodyMarkdown: "A reply about harbours.",
      replyToId: a.id,
    });
    // An index that lost rows and kept one it should not have.
    await engine.context.db.deleteFrom("post_search").execute();
    await engine.context.db
      .insertInto("post_search")
      .values({ post_id: draft.id, search_text: "hidden draft" })
      .execute();
    expect((await engine.posts.search({ q: "harbour" })).count).toBe(0);

    const pages = await walkPages((cursor) => engine.search.reindex({ cursor, limit: 3 }));
    expect(pages.map((page) => page.processed)).toEqual([3, 1]);
    expect(pages.reduce((sum, page) => sum + page.indexed, 0)).toBe(3);
    expect(await searchRows(engine)).toEqual([a.id, b.id, c.id].sort());
    const found = await engine.posts.search({ q: "harbour" });
    expect(found.results.map((result) => result.id).sort()).toEqual([a.id, c.id].sort());

    // Running it again changes nothing.
    const again = await engine.search.reindex({ limit: 1000 });
    expect(again).toEqual({ processed: 4, indexed: 3, nextCursor: null });
    expect(await searchRows(engine)).toEqual([a.id, b.id, c.id].sort());
  });

  it("refuses a cursor it did not make, and other callers", async () => {
    const { engine } = await openTestEngine();
    expect(await codeOf(engine.search.reindex({ cursor: "nonsense" }))).toBe("VALIDATION_ERROR");
    const { nextCursor } = await engine.posts.list({ limit: 1 }).then(async () => {
      await engine.posts.create({ format: "note", bodyMarkdown: "One." });
      await engine.posts.create({ format: "note", bodyMarkdown: "Two." });
      return engine.posts.list({ limit: 1 });
    });
    expect(nextCursor).not.toBeNull();
    expect(await codeOf(engine.search.reindex({ cursor: nextCursor as string }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.search.reindex({}, ownerCaller))).toBe("FORBIDDEN");
  });
});

async function stored(engine: Engine, id: string) {
  return engine.context.db
    .selectFrom("posts")
    .select(["body", "body_html", "updated_at", "slug", "body_text"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

describe("posts.rebuildHtml", () => {
  it("rewrites only HTML that differs from what the body renders to, leaving updatedAt and the slug", async () => {
    const { engine, clock } = await openTestEngine();
    const a = await engine.posts.create({ format: "note", title: "A", bodyMarkdown: "First *post*." });
    const b = await engine.posts.create({ format: "note", title: "B", bodyMarkdown: "Second." });
    const noBody = await engine.posts.create({ format: "note", title: "No body" });
    const c = await engine.posts.create({ format: "note", title: "C", bodyMarkdown: "Third." });
    const before = {
      a: await stored(engine, a.id),
      b: await stored(engine, b.id),
      c: await stored(engine, c.id),
    };
    // HTML as an older renderer wrote it.
    await engine.context.db
      .updateTable("posts")
      .set({ body_html: "<p>old</p>" })
      .where("id", "in", [a.id, c.id])
      .execute();
    clock.set(clock.now() + 3600);

    const dry = await engine.posts.rebuildHtml({ dryRun: true });
    expect(dry).toEqual({
      dryRun: true,
      scanned: 3,
      changed: 2,
      unchanged: 1,
      skipped: 0,
      changedIds: [a.id, c.id],
      skippedIds: [],
      nextCursor: null,
    });
    expect((await stored(engine, a.id)).body_html).toBe("<p>old</p>");

    const pages = await walkPages((cursor) => engine.posts.rebuildHtml({ cursor, limit: 2 }));
    expect(pages.map((page) => page.scanned)).toEqual([2, 1]);
    expect(pages.flatMap((page) => page.changedIds)).toEqual([a.id, c.id]);
    expect(pages.some((page) => page.changedIds.includes(noBody.id))).toBe(false);
    for (const [name, id] of [
      ["a", a.id],
      ["c", c.id],
    ] as const) {
      const now = await stored(engine, id);
      expect(now).toEqual(before[name]);
      expect(now.body_html).toBe(renderMarkdown(name === "a" ? "First *post*." : "Third.").html);
    }
    expect(await stored(engine, b.id)).toEqual(before.b);
    expect((await engine.posts.get({ id: a.id })).updatedAt).toBe(a.updatedAt);

    const again = await engine.posts.rebuildHtml({});
    expect(again).toMatchObject({ scanned: 3, changed: 0, unchanged: 3, skipped: 0 });
  });

  it("leaves a post edited between its read and its write to the edit, and reports it skipped", async () => {
    const { engine, clock } = await openTestEngine();
    const a = await engine.posts.create({ format: "note", title: "A", bodyMarkdown: "Before." });
    const b = await engine.posts.create({ format: "note", title: "B", bodyMarkdown: "Other." });
    await engine.context.db.updateTable("posts").set({ body_html: "<p>old</p>" }).execute();
    clock.set(clock.now() + 60);
    const answer = await rebuildBodyHtml(
      engine.context,
      { limit: 100, dryRun: false },
      {
        beforeWrite: async (id) => {
          if (id === a.id) await engine.posts.update({ id, bodyMarkdown: "Edited meanwhile." });
        },
      },
    );
    expect(answer).toMatchObject({
      scanned: 2,
      changed: 1,
      skipped: 1,
      changedIds: [b.id],
      skippedIds: [a.id],
    });
    const edited = await stored(engine, a.id);
    expect(edited.body_html).toBe(renderMarkdown("Edited meanwhile.").html);
    expect(edited.updated_at).toBe(clock.now());
  });

  it("skips a stored body it cannot read, and refuses bad input and other callers", async () => {
    const { engine } = await openTestEngine();
    const a = await engine.posts.create({ format: "note", bodyMarkdown: "Fine." });
    await engine.context.db.updateTable("posts").set({ body: "{not json", body_html: "<p>x</p>" }).execute();
    expect(await engine.posts.rebuildHtml({})).toMatchObject({
      scanned: 1,
      changed: 0,
      skipped: 1,
      skippedIds: [a.id],
    });
    expect((await stored(engine, a.id)).body_html).toBe("<p>x</p>");
    expect(await codeOf(engine.posts.rebuildHtml({ dryRun: "no" } as never))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.rebuildHtml({ cursor: "garbage" }))).toBe("VALIDATION_ERROR");
    expect(await codeOf(engine.posts.rebuildHtml({}, ownerCaller))).toBe("FORBIDDEN");
  });
});
