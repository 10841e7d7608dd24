import { beforeEach, describe, expect, it } from "vitest";
import { openTestEngine, type TestClock } from "../../test/support.js";
import type { Engine } from "../engine.js";
import { EngineError } from "../errors.js";

let engine: Engine;
let clock: TestClock;
const NOW = 1_700_000_000;

beforeEach(async () => {
  ({ engine, clock } = await openTestEngine({ now: NOW }));
});

describe("posts.list", () => {
  it("orders published posts newest first with id breaking ties, pins not moved up, replies included", async () => {
    const a = await engine.posts.create({ format: "note", title: "a", publishedAt: 100 });
    const b = await engine.posts.create({ format: "note", title: "b", publishedAt: 200, pinned: true });
    const c = await engine.posts.create({ format: "note", title: "c", publishedAt: 200 });
    const reply = await engine.posts.create({
      format: "note",
      bodyMarkdown: "r",
      replyToId: a.id,
      publishedAt: 150,
    });
    await engine.posts.create({ format: "note", title: "draft", status: "draft" });
    const { posts, nextCursor } = await engine.posts.list({});
    expect(posts.map((p) => p.id)).toEqual([c.id, b.id, reply.id, a.id]);
    expect(nextCursor).toBeNull();
    expect(posts[0]).not.toHaveProperty("collectionIds");
    expect(posts[0]).not.toHaveProperty("threadPosition");
  });

  it("walks every post exactly once with cursors, for any page size", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      ids.push(
        (await engine.posts.create({ format: "note", title: `p${i}`, publishedAt: 1000 + (i % 5) })).id,
      );
    }
    for (const limit of [1, 4, 7, 23, 50]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await engine.posts.list({ limit, cursor });
        expect(page.posts.length).toBeLessThanOrEqual(limit);
        seen.push(...page.posts.map((p) => p.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toHaveLength(23);
      expect(new Set(seen)).toEqual(new Set(ids));
    }
  });

  it("lists drafts by updatedAt and filters by format", async () => {
    const d1 = await engine.posts.create({ format: "note", title: "d1", status: "draft" });
    clock.advance(10);
    const d2 = await engine.posts.create({
      format: "link",
      title: "d2",
      url: "https://x.example",
      status: "draft",
    });
    clock.advance(10);
    await engine.posts.update({ id: d1.id, title: "d1 edited" });
    expect((await engine.posts.list({ status: "draft" })).posts.map((p) => p.id)).toEqual([d1.id, d2.id]);
    expect((await engine.posts.list({ status: "draft", format: "link" })).posts.map((p) => p.id)).toEqual([
      d2.id,
    ]);
  });

  it("clamps limit, takes numbers only (the HTTP edge converts text) and returns markdown on request", async () => {
    for (let i = 0; i < 3; i++) await engine.posts.create({ format: "note", bodyMarkdown: `**${i}**` });
    expect((await engine.posts.list({ limit: 0 })).posts).toHaveLength(1);
    expect((await engine.posts.list({ limit: 500 })).posts).toHaveLength(3);
    expect(await engine.posts.list({ limit: "500" as never }).catch((err) => err.code)).toBe(
      "VALIDATION_ERROR",
    );
    const page = await engine.posts.list({ limit: 1, content: "markdown" });
    expect(page.posts[0]).toHaveProperty("bodyMarkdown", "**2**");
    expect(page.posts[0]).not.toHaveProperty("bodyHtml");
  });

  it("refuses unreadable cursors, cursors of another order and bare IDs", async () => {
    const post = await engine.posts.create({ format: "note", title: "x" });
    await engine.posts.create({ format: "note", title: "y" });
    const draftCursor = await (async () => {
      await engine.posts.create({ format: "note", title: "d", status: "draft" });
      await engine.posts.create({ format: "note", title: "e", status: "draft" });
      return (await engine.posts.list({ status: "draft", limit: 1 })).nextCursor as string;
    })();
    for (const cursor of ["garbage!", "eyJ4IjoxfQ", post.id, draftCursor]) {
      const err = await engine.posts.list({ cursor }).catch((e) => e);
      expect(err).toBeInstanceOf(EngineError);
      expect(err.code).toBe("VALIDATION_ERROR");
    }
    expect(await engine.posts.list({ limit: "abc" as never }).catch((e) => e.code)).toBe("VALIDATION_ERROR");
    expect(await engine.posts.list({ status: "all" as never }).catch((e) => e.code)).toBe("VALIDATION_ERROR");
  });
});
