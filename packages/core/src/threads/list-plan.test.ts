import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publicCaller } from "../caller.js";
import { createEngine, type Engine } from "../engine.js";
import { createTestEngine, testDatabaseKind } from "../testing/test-engine.js";

/**
 * Query plans of the homepage Thread list on SQLite (no ANALYZE statistics, as on a fresh site):
 * each segment reads the index made for it. Without being told, SQLite reads the pinned section
 * through `threads_activity_all` (every published root, checked for a pin row by row).
 */
describe.skipIf(testDatabaseKind() !== "sqlite")("the Thread list's query plans (SQLite)", () => {
  let engine: Engine;
  let cleanup: () => Promise<void>;
  const seen: RootOperationNode[] = [];

  beforeAll(async () => {
    const site = await createTestEngine();
    cleanup = site.cleanup;
    for (let i = 0; i < 30; i++) {
      await site.engine.posts.create({
        format: "note",
        bodyMarkdown: `post ${i}`,
        publishedAt: 1_700_000_000 + i,
        pinned: i % 10 === 0,
      });
    }
    const recorder: KyselyPlugin = {
      transformQuery: (args) => {
        seen.push(args.node);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    engine = createEngine({
      ...site.engine.context,
      dialect: site.engine.context.dialect.name,
      db: site.engine.context.db.withPlugin(recorder),
    });
  });

  afterAll(async () => {
    await cleanup();
  });

  /** The query plan of each Thread-list query `list` makes, in order (a first call: none is cached). */
  async function plansOf(list: () => Promise<unknown>): Promise<string[]> {
    seen.length = 0;
    await list();
    const db = engine.context.db;
    const plans: string[] = [];
    for (const node of seen) {
      const compiled = db.getExecutor().compileQuery(node, { queryId: "plan" });
      if (!/from "posts" as "r"/.test(compiled.sql)) continue;
      const rows = await db.withoutPlugins().executeQuery<{ detail: string }>(
        // A compiled statement (db/compiled.ts) is recorded once, with placeholders where its
        // values go; SQLite plans without looking at the values, so null stands in for them.
        CompiledQuery.raw(
          `explain query plan ${compiled.sql}`,
          compiled.parameters.map((value) => (typeof value === "object" ? null : value)),
        ),
      );
      plans.push(rows.rows.map((row) => row.detail).join("; "));
    }
    return plans;
  }

  it("reads the pinned section from threads_pinned and the rest from threads_activity", async () => {
    const plans = await plansOf(async () => {
      const page = await engine.publicThreads.list({ limit: 5, content: "markdown" }, publicCaller);
      expect(page.threads.map((thread) => thread.root.bodyMarkdown)).toEqual([
        "post 20",
        "post 10",
        "post 0",
        "post 29",
        "post 28",
      ]);
    });
    expect(plans).toHaveLength(2);
    expect(plans[0]).toMatch(/USING INDEX threads_pinned\b/);
    expect(plans[1]).toMatch(/USING INDEX threads_activity\b/);
  });

  it("reads lists of several visibilities past the pins from threads_activity_all, in its order", async () => {
    const bodies = (page: { threads: { root: object }[] }) =>
      page.threads.map((thread) => ("bodyMarkdown" in thread.root ? thread.root.bodyMarkdown : undefined));
    const lists = [
      async () => bodies(await engine.threads.list({ limit: 5, content: "markdown" })),
      async () =>
        bodies(
          await engine.publicThreads.list({ limit: 5, visibility: "any", content: "markdown" }, publicCaller),
        ),
    ];
    for (const list of lists) {
      // The same page as the homepage's: the pins, newest activity first, then the rest.
      const plans = await plansOf(async () =>
        expect(await list()).toEqual(["post 20", "post 10", "post 0", "post 29", "post 28"]),
      );
      expect(plans).toHaveLength(2);
      expect(plans[0]).toMatch(/USING INDEX threads_pinned\b/);
      expect(plans[1]).toMatch(/USING INDEX threads_activity_all\b/);
      expect(plans[1]).not.toMatch(/TEMP B-TREE/);
    }
  });
});
