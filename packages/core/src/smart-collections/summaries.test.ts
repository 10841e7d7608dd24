import { beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { openTestEngine } from "../../test/support.js";
import { ownerCaller, publicCaller } from "../caller.js";
import type { Engine } from "../engine.js";
import type { Selection } from "./smart-collection-schemas.js";
import { smartCollectionSummaries } from "./summaries.js";

let engine: Engine;
const NOW = 1_700_000_000;

beforeEach(async () => {
  ({ engine } = await openTestEngine({ now: NOW }));
});

async function insertSmartCollection(id: string, selection: Selection, createdAt: number) {
  await engine.context.db
    .insertInto("smart_collections")
    .values({
      id,
      slug: id.replace("_", "-"),
      title: id,
      description: null,
      selection: JSON.stringify(selection),
      sort_order: "newest",
      layout: null,
      created_at: createdAt,
      updated_at: createdAt + 1,
    })
    .execute();
}

describe("smartCollectionSummaries", () => {
  it("counts every smart collection in one scan, for the caller, in creation order", async () => {
    await engine.posts.create({ format: "note", title: "t", publishedAt: 100 });
    const link = await engine.posts.create({
      format: "link",
      title: "l",
      url: "https://x.example",
      publishedAt: 200,
    });
    await engine.posts.create({ format: "note", bodyMarkdown: "p", visibility: "private", publishedAt: 300 });
    await engine.posts.create({ format: "note", bodyMarkdown: "r", replyToId: link.id, publishedAt: 400 });
    await engine.posts.create({ format: "note", title: "d", status: "draft" });
    await insertSmartCollection("smc_b", { format: "link" }, 10);
    await insertSmartCollection("smc_a", {}, 20);
    await insertSmartCollection("smc_c", { format: "quote" }, 30);
    await insertSmartCollection("smc_d", { title: false }, 40);

    const owner = await smartCollectionSummaries(engine.context, ownerCaller, {});
    expect(owner.map((s) => [s.title, s.threadCount, s.recentActivityAt])).toEqual([
      ["smc_b", 1, 400],
      ["smc_a", 3, 400],
      ["smc_c", 0, 31],
      ["smc_d", 1, 300],
    ]);
    const reader = await smartCollectionSummaries(engine.context, publicCaller, {});
    expect(reader.map((s) => s.threadCount)).toEqual([1, 2, 0, 0]);
    const german = await smartCollectionSummaries(engine.context, ownerCaller, { lang: "de" });
    expect(german.map((s) => s.threadCount)).toEqual([0, 0, 0, 0]);
  });
});

describe("smartCollectionSummaries cache", () => {
  it("recounts after every kind of write, also one made through another engine on the database", async () => {
    const { createEngine } = await import("../engine.js");
    const { createTestEngine } = await import("../testing/test-engine.js");
    const site = await createTestEngine({ now: NOW });
    onTestFinished(site.cleanup);
    const { engine: first } = site;
    const otherDb = await site.reopen();
    const second = createEngine({ db: otherDb });
    onTestFinished(() => otherDb.destroy());
    const counts = async () =>
      (await first.smartCollections.list({})).smartCollections.map((s) => [
        s.threadCount,
        s.recentActivityAt,
      ]);

    const root = await first.posts.create({ format: "note", title: "a", publishedAt: 100 });
    const col = await first.collections.create({ slug: "c", title: "C" });
    await first.smartCollections.create({ slug: "all", title: "all" });
    await first.smartCollections.create({ slug: "in-c", title: "in c", selection: { collection: [col.id] } });
    await first.smartCollections.create({ slug: "open", title: "p", selection: { visibility: "public" } });
    expect(await counts()).toEqual([
      [1, 100],
      [0, NOW],
      [1, 100],
    ]);
    expect(await counts()).toEqual(await counts());

    await second.posts.create({ format: "note", bodyMarkdown: "r", replyToId: root.id, publishedAt: 200 });
    expect((await counts())[0]).toEqual([1, 200]);
    await second.collections.addThread({ id: col.id, threadId: root.id });
    expect((await counts())[1]).toEqual([1, 200]);
    await second.posts.update({ id: root.id, visibility: "private" });
    expect((await counts())[2]).toEqual([0, NOW]);
    await second.collections.removeThread({ id: col.id, threadId: root.id });
    expect((await counts())[1]).toEqual([0, NOW]);
    await second.posts.delete({ id: root.id });
    expect((await counts())[0]).toEqual([0, NOW]);
  });
});
