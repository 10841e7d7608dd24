import { entryId } from "@quire/core";
import { beforeEach, describe, expect, it } from "vitest";
import { createTestSite, expectError, type TestSite } from "./helpers.js";

const now = 1_700_000_000;
let site: TestSite;
beforeEach(async () => {
  site = await createTestSite({ engineConfig: { now } });
});

/** An anonymous GET (no token: the discovery read is public). */
function anonymous(path: string) {
  return site.call("GET", path, undefined, { authorization: "" });
}

async function post(fields: Record<string, unknown>): Promise<string> {
  const res = await site.call("POST", "/api/posts", { format: "note", bodyMarkdown: "x", ...fields });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function settings(values: Record<string, string>) {
  const res = await site.call("PUT", "/api/settings", values);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The post IDs a JSON feed lists, read back from its entries' `urn:uuid:` IDs. */
async function feedIds(kind: "latest" | "featured", ids: string[]): Promise<Set<string>> {
  const response = await site.handler(new Request(`https://example.com/feeds/${kind}/json`));
  expect(response.status).toBe(200);
  const entries = new Set(((await response.json()).items as { id: string }[]).map((item) => item.id));
  return new Set(ids.filter((id) => entries.has(entryId(id))));
}

function discover(ids: string[], extra = "") {
  return anonymous(`/api/discover/posts?${ids.map((id) => `id=${id}`).join("&")}${extra}`);
}

const unknownId = "pst_01h455vb4pex5vsknk084sn02q";

describe("GET /api/discover/posts", () => {
  it("is 404 until the site is listed (DISCOVER defaults to off)", async () => {
    const id = await post({ title: "A" });
    expectError(await discover([id]), 404, "NOT_FOUND");
    await settings({ DISCOVER: "latest" });
    const res = await discover([id]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ posts: [{ id, latest: true, featured: false }] });
  });

  it("agrees with the latest and featured feeds, in request order, unknown IDs false", async () => {
    await settings({ DISCOVER: "latest" });
    const plain = await post({ title: "Plain" });
    const featured = await post({ title: "Featured", featured: true });
    const hiddenFeatured = await post({
      title: "Hidden featured",
      featured: true,
      visibility: "latest_hidden",
    });
    const hidden = await post({ title: "Hidden", visibility: "latest_hidden" });
    const privateFeatured = await post({ title: "Private", featured: true, visibility: "private" });
    const draft = await post({ title: "Draft", status: "draft", featured: true });
    const reply = await post({ replyToId: plain, featured: true });
    const ids = [unknownId, reply, draft, privateFeatured, hidden, hiddenFeatured, featured, plain, featured];
    const res = await discover(ids);
    expect(res.status).toBe(200);
    const latest = await feedIds("latest", ids);
    const featuredFeed = await feedIds("featured", ids);
    expect(res.body.posts).toEqual(
      ids.map((id) => ({ id, latest: latest.has(id), featured: featuredFeed.has(id) })),
    );
    // What the feeds say, spelled out: only the public roots are latest, featured any non-private.
    expect(res.body.posts.map((p: { latest: boolean; featured: boolean }) => [p.latest, p.featured])).toEqual(
      [
        [false, false], // unknown
        [false, false], // a reply is no feed entry
        [false, false], // draft
        [false, false], // private
        [false, false], // latest-hidden, not featured
        [false, true], // latest-hidden, featured
        [true, true],
        [true, false],
        [true, true],
      ],
    );
  });

  it("follows the publish delay and the feed limit, as the feeds do", async () => {
    await settings({ DISCOVER: "latest", RSS_PUBLISH_DELAY_SECONDS: "150" });
    const first = await post({ title: "First" });
    site.clock.advance(100);
    const second = await post({ title: "Second" });
    site.clock.advance(100);
    // First was published 200 s ago, Second 100 s ago: only First is past the delay.
    expect((await discover([first, second])).body.posts.map((p: { latest: boolean }) => p.latest)).toEqual([
      true,
      false,
    ]);
    expect([...(await feedIds("latest", [first, second]))]).toEqual([first]);
    site.clock.advance(100);
    expect((await discover([first, second])).body.posts.map((p: { latest: boolean }) => p.latest)).toEqual([
      true,
      true,
    ]);
    // A feed of one entry lists the newest only.
    await settings({ RSS_FEED_LIMIT: "1" });
    expect((await discover([first, second])).body.posts.map((p: { latest: boolean }) => p.latest)).toEqual([
      false,
      true,
    ]);
    expect([...(await feedIds("latest", [first, second]))]).toEqual([second]);
  });

  it("stays open with PUBLIC_API_ENABLED=false; 404 under NOINDEX, DISCOVER=off or feeds off", async () => {
    const id = await post({ title: "A" });
    await settings({ DISCOVER: "latest", PUBLIC_API_ENABLED: "false" });
    expect((await site.handler(new Request("https://example.com/feeds/latest/json"))).status).toBe(404);
    expect((await discover([id])).body.posts).toEqual([{ id, latest: true, featured: false }]);
    await settings({ PUBLIC_API_ENABLED: "true", NOINDEX: "true" });
    expectError(await discover([id]), 404, "NOT_FOUND");
    await settings({ NOINDEX: "false", RSS_FEEDS_ENABLED: "false" });
    expectError(await discover([id]), 404, "NOT_FOUND");
    await settings({ RSS_FEEDS_ENABLED: "true", DISCOVER: "off" });
    expectError(await discover([id]), 404, "NOT_FOUND");
    await settings({ DISCOVER: "latest" });
    expect((await discover([id])).status).toBe(200);
  });

  it("takes a comma list, and lang: a post in another language is in neither feed", async () => {
    await settings({ DISCOVER: "latest", ADDITIONAL_LANGUAGES: "fr", MULTILINGUAL_ENABLED: "true" });
    const english = await post({ title: "Hello", language: "en", featured: true });
    const french = await post({ title: "Bonjour", language: "fr", featured: true });
    const both = await anonymous(`/api/discover/posts?id=${english},${french}`);
    expect(both.body.posts).toEqual([
      { id: english, latest: true, featured: true },
      { id: french, latest: true, featured: true },
    ]);
    const fr = await anonymous(`/api/discover/posts?id=${english},${french}&lang=fr`);
    expect(fr.body.posts).toEqual([
      { id: english, latest: false, featured: false },
      { id: french, latest: true, featured: true },
    ]);
  });

  it("an untagged post counts as written in the site's language", async () => {
    await settings({ DISCOVER: "latest", SITE_LANGUAGE: "de" });
    const id = await post({ title: "Hallo" });
    expect((await discover([id], "&lang=de")).body.posts).toEqual([{ id, latest: true, featured: false }]);
    expect((await discover([id], "&lang=en")).body.posts).toEqual([{ id, latest: false, featured: false }]);
  });

  it("answers 400 naming the field for no ID, 51 IDs, a malformed ID or language", async () => {
    await settings({ DISCOVER: "latest" });
    const id = await post({ title: "A" });
    const none = await anonymous("/api/discover/posts");
    expectError(none, 400, "VALIDATION_ERROR");
    expect(none.body.details.fieldErrors).toHaveProperty("id");
    const many = await discover(Array.from({ length: 51 }, () => id));
    expectError(many, 400, "VALIDATION_ERROR");
    expect(many.body.details.fieldErrors).toHaveProperty("id");
    expect((await discover(Array.from({ length: 50 }, () => id))).body.posts).toHaveLength(50);
    const malformed = await discover([id, "col_01h455vb4pex5vsknk084sn02q"]);
    expectError(malformed, 400, "VALIDATION_ERROR");
    expect(Object.keys(malformed.body.details.fieldErrors)).toEqual(["id[1]"]);
    const lang = await discover([id], "&lang=not a tag");
    expectError(lang, 400, "VALIDATION_ERROR");
    expect(lang.body.details.fieldErrors).toHaveProperty("lang");
  });

  it("is the same read in-process, for any caller", async () => {
    await settings({ DISCOVER: "latest" });
    const id = await post({ title: "A" });
    expect(await site.engine.discover.posts({ id: [id] })).toEqual({
      posts: [{ id, latest: true, featured: false }],
    });
  });
});
