import { describe, expect, it } from "vitest";
import { statusCounts } from "./concurrency-invariants.js";
import { createTestSite, type TestSite } from "./helpers.js";

/**
 * Custom URL writers at once through the Fetch handler: on PostgreSQL the pool lets them overlap
 * (READ COMMITTED); on SQLite they queue. @see docs/custom-urls.md § Concurrent writers
 */

async function createSite(): Promise<TestSite> {
  return createTestSite({ engineConfig: { now: 1_700_000_000, poolSize: 12 } });
}

async function permalink(site: TestSite, slug: string): Promise<string> {
  return (await site.call("GET", `/api/public/posts/${slug}`)).body.permalink;
}

/** Every custom URL and address row agrees: each alias's target exists, each address has its record. */
async function checkAddresses(site: TestSite): Promise<void> {
  const db = site.engine.context.db;
  const urls = await db.selectFrom("custom_urls").selectAll().execute();
  const addresses = await db
    .selectFrom("site_addresses")
    .selectAll()
    .where("owner_type", "=", "custom_url")
    .execute();
  expect(addresses.map((a) => [a.owner_id, `/${a.path}`]).sort()).toEqual(
    urls.map((u) => [u.id, u.path]).sort(),
  );
  const posts = new Set((await db.selectFrom("posts").select("id").execute()).map((row) => row.id));
  for (const url of urls.filter((u) => u.target_type === "post"))
    expect(posts.has(url.target_id ?? "")).toBe(true);
  // Every post's permalink_path is its oldest alias.
  for (const row of await db.selectFrom("posts").select(["id", "permalink_path"]).execute()) {
    const oldest = urls
      .filter((u) => u.target_type === "post" && u.target_id === row.id)
      .sort((a, b) => Number(a.created_at) - Number(b.created_at) || (a.id < b.id ? -1 : 1))[0];
    expect(row.permalink_path, row.id).toBe(oldest?.path ?? null);
  }
}

describe("concurrent custom URL writers", () => {
  it("aliases added and removed at once leave the post at its oldest alias", async () => {
    const site = await createSite();
    const p = (await site.call("POST", "/api/posts", { format: "note", slug: "busy", bodyMarkdown: "x" }))
      .body;
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        site.call("POST", "/api/custom-urls", { path: `busy/${i}`, targetType: "post", targetId: p.id }),
      ),
    );
    expect(statusCounts(created)).toEqual({ 201: 12 });
    await checkAddresses(site);
    const oldest = created.map((res) => res.body).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(await permalink(site, "busy")).toBe(oldest[0].path);

    // Remove the oldest half at once while moving two others: the permalink lands on the oldest left.
    const removals = oldest.slice(0, 6).map((url) => () => site.call("DELETE", `/api/custom-urls/${url.id}`));
    const moves = oldest
      .slice(6, 8)
      .map((url, i) => () => site.call("PUT", `/api/custom-urls/${url.id}`, { path: `busy/moved-${i}` }));
    const answers = await Promise.all([...removals, ...moves].map((request) => request()));
    expect(statusCounts(answers)).toEqual({ 200: 8 });
    await checkAddresses(site);
    expect(await permalink(site, "busy")).toBe("/busy/moved-0");
  });

  it("a Thread deleted while aliases are added to its posts leaves no alias behind", async () => {
    const site = await createSite();
    const root = (await site.call("POST", "/api/posts", { format: "note", slug: "root", bodyMarkdown: "x" }))
      .body;
    const reply = (
      await site.call("POST", "/api/posts", {
        format: "note",
        slug: "reply",
        bodyMarkdown: "y",
        replyToId: root.id,
      })
    ).body;
    const adds = Array.from(
      { length: 10 },
      (_, i) => () =>
        site.call("POST", "/api/custom-urls", {
          path: `doomed/${i}`,
          targetType: "post",
          targetId: i % 2 === 0 ? root.id : reply.id,
        }),
    );
    const answers = await Promise.all(
      [...adds.slice(0, 5), () => site.call("DELETE", `/api/posts/${root.id}`), ...adds.slice(5)].map((r) =>
        r(),
      ),
    );
    expect(answers[5]?.status).toBe(200);
    for (const answer of answers.filter((_, i) => i !== 5)) {
      expect([201, 400]).toContain(answer.status);
      if (answer.status === 400) expect(answer.body.details.fieldErrors.targetId).toBeDefined();
    }
    await checkAddresses(site);
    expect((await site.call("GET", "/api/custom-urls")).body.customUrls).toEqual([]);
  });

  it("one custom URL moved to many targets at once ends on exactly one, with both permalinks right", async () => {
    const site = await createSite();
    const posts = [];
    for (let i = 0; i < 6; i++) {
      posts.push(
        (await site.call("POST", "/api/posts", { format: "note", slug: `t-${i}`, bodyMarkdown: "x" })).body,
      );
    }
    const url = (
      await site.call("POST", "/api/custom-urls", {
        path: "wanderer",
        targetType: "post",
        targetId: posts[0].id,
      })
    ).body;
    const answers = await Promise.all(
      posts.slice(1).map((p) => site.call("PUT", `/api/custom-urls/${url.id}`, { targetId: p.id })),
    );
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    await checkAddresses(site);
    const final = (await site.call("GET", "/api/custom-urls")).body.customUrls[0];
    const holders = [];
    for (const p of posts) if ((await permalink(site, p.slug)) === "/wanderer") holders.push(p.id);
    expect(holders).toEqual([final.targetId]);
  });
});
