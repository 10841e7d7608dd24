import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";
import { openEngine } from "../src/server.js";
import { runCliCapturing } from "./support/cli.js";
import { createTestSite } from "./support/processes.js";

const silent = { info: () => {}, warn: () => {}, error: () => {} };

/** The maintenance commands call the internal admin's operations in-process (docs/internal-admin.md). */
describe("the CLI's maintenance commands", () => {
  let site: Awaited<ReturnType<typeof createTestSite>>;

  beforeAll(async () => {
    site = await createTestSite();
  });
  afterAll(async () => {
    await site.cleanup();
  });

  const run = (...argv: string[]) => runCliCapturing(argv, site.env);

  /** Runs `use` on an engine over the CLI's database. */
  async function withEngine<T>(
    use: (engine: Awaited<ReturnType<typeof openEngine>>) => Promise<T>,
  ): Promise<T> {
    const engine = await openEngine(loadConfig(site.env), silent);
    try {
      await engine.migrate();
      return await use(engine);
    } finally {
      await engine.close();
    }
  }

  it("tokens health and tokens purge", async () => {
    expect((await run("token", "create", "ci")).code).toBe(0);
    const health = await run("tokens", "health", "--stale-days", "30");
    expect(health.code, health.stderr).toBe(0);
    expect(health.stdout).toMatch(/^Tokens: 1 \(active 1, stale 0, never used [01]\)$/m);
    const dry = await run("tokens", "purge", "--unused-days", "1", "--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/Would delete 0 API tokens/);
    expect((await run("tokens", "purge")).code).toBe(2);
    expect((await run("tokens", "purge", "--unused-days", "soon")).code).toBe(2);
    expect((await run("tokens", "health", "--verbose")).code).toBe(2);
  });

  it("search reindex and posts rebuild-html walk every batch", async () => {
    const ids = await withEngine(async (engine) => {
      const posts = [];
      for (const word of ["alpha", "beta", "gamma"]) {
        posts.push(
          await engine.posts.create({ format: "note", title: word, bodyMarkdown: `About *${word}*.` }),
        );
      }
      await engine.context.db.deleteFrom("post_search").execute();
      await engine.context.db.updateTable("posts").set({ body_html: "<p>stale</p>" }).execute();
      return posts.map((post) => post.id);
    });
    const reindex = await run("search", "reindex", "--batch", "2");
    expect(reindex.code, reindex.stderr).toBe(0);
    expect(reindex.stdout).toMatch(/Reindexed 3 posts \(3 published/);

    const dry = await run("posts", "rebuild-html", "--dry-run", "--batch", "2");
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/Dry run: 3 posts scanned, 3 would change, 0 unchanged, 0 skipped/);
    const rebuilt = await run("posts", "rebuild-html");
    expect(rebuilt.stdout).toMatch(/3 posts scanned, 3 changed/);
    for (const id of ids) expect(rebuilt.stdout).toContain(`changed ${id}`);
    await withEngine(async (engine) => {
      const rows = await engine.context.db.selectFrom("posts").select("body_html").execute();
      expect(rows.every((row) => row.body_html !== "<p>stale</p>")).toBe(true);
      expect((await engine.posts.search({ q: "gamma" })).results.map((result) => result.id)).toEqual([
        ids[2],
      ]);
    });
    expect((await run("posts", "rebuild-html", "--batch")).code).toBe(2);
  });

  it("uploads cleanup", async () => {
    const done = await run("uploads", "cleanup");
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(
      /^Expired 0 upload sessions, removed 0 finished ones, swept 0 orphaned files\.$/m,
    );
  });
});
