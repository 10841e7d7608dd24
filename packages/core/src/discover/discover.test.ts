import { describe, expect, it } from "vitest";
import { codeOf, openTestEngine } from "../../test/support.js";
import { publicCaller } from "../caller.js";

describe("discover.posts in-process", () => {
  it("answers per ID in order from the feeds' rules, for the public caller, and 404 while unlisted", async () => {
    const { engine, clock } = await openTestEngine({ now: 1_700_000_000, settings: { discover: "latest" } });
    const a = await engine.posts.create({ format: "note", bodyMarkdown: "A", featured: true });
    const b = await engine.posts.create({ format: "note", bodyMarkdown: "B", visibility: "latest_hidden" });
    const draft = await engine.posts.create({ format: "note", bodyMarkdown: "C", status: "draft" });
    const answer = await engine.discover.posts({ id: [draft.id, b.id, a.id] }, publicCaller);
    expect(answer.posts).toEqual([
      { id: draft.id, latest: false, featured: false },
      { id: b.id, latest: false, featured: false },
      { id: a.id, latest: true, featured: true },
    ]);
    // The publish delay: a new post waits, then appears by itself.
    await engine.settings.update({ RSS_PUBLISH_DELAY_SECONDS: "60" });
    const late = await engine.posts.create({ format: "note", bodyMarkdown: "D" });
    expect((await engine.discover.posts({ id: [late.id] })).posts[0]?.latest).toBe(false);
    clock.advance(60);
    expect((await engine.discover.posts({ id: [late.id] })).posts[0]?.latest).toBe(true);
    await engine.settings.update({ DISCOVER: "off" });
    expect(await codeOf(engine.discover.posts({ id: [a.id] }))).toBe("NOT_FOUND");
  });

  it("is closed by NOINDEX and by RSS_FEEDS_ENABLED=false, not by PUBLIC_API_ENABLED=false", async () => {
    const { engine } = await openTestEngine({ settings: { discover: "latest", publicApiEnabled: false } });
    const a = await engine.posts.create({ format: "note", bodyMarkdown: "A" });
    expect((await engine.discover.posts({ id: [a.id] }, publicCaller)).posts[0]?.latest).toBe(true);
    await engine.settings.update({ NOINDEX: "true" });
    expect(await codeOf(engine.discover.posts({ id: [a.id] }))).toBe("NOT_FOUND");
    await engine.settings.update({ NOINDEX: "false", RSS_FEEDS_ENABLED: "false" });
    expect(await codeOf(engine.discover.posts({ id: [a.id] }))).toBe("NOT_FOUND");
  });
});
