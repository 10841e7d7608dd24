import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { codeOf, useTestSite, walkPages } from "../../test/support.js";
import { publicCaller } from "../caller.js";
import type { Engine } from "../engine.js";
import { testDatabaseKind } from "../testing/test-engine.js";

const site = useTestSite({ now: 1_700_000_000 });
let engine: Engine;
beforeEach(() => {
  ({ engine } = site);
});

const T = 1_600_000_000;
const statuses = ["published", "published", "published", "draft"] as const;

const replyArb = fc.record({
  at: fc.integer({ min: 0, max: 6 }),
  quiet: fc.boolean(),
  status: fc.constantFrom(...statuses),
});
const threadArb = fc.record({
  at: fc.integer({ min: 0, max: 5 }),
  status: fc.constantFrom(...statuses),
  visibility: fc.constantFrom("public", "public", "latest_hidden", "private"),
  pinned: fc.constantFrom(false, false, false, true),
  featured: fc.boolean(),
  rating: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
  format: fc.constantFrom("note", "link", "quote"),
  replies: fc.array(replyArb, { maxLength: 3 }),
});
const queryArb = fc.record(
  {
    surface: fc.constantFrom("owner", "public"),
    sort: fc.constantFrom("activity", "published", "updated", "oldest", "rating", undefined),
    visibility: fc.constantFrom("public", "featured", "hidden", "latest_hidden", "any", "private", undefined),
    status: fc.constantFrom("published", "draft", undefined),
    format: fc.constantFrom("note", "link", "quote", undefined),
    replies: fc.constantFrom("any", "none", undefined),
    limit: fc.integer({ min: 1, max: 6 }),
  },
  { requiredKeys: ["surface", "limit"] },
);

type ThreadSpec = typeof threadArb extends fc.Arbitrary<infer X> ? X : never;
type QuerySpec = typeof queryArb extends fc.Arbitrary<infer X> ? X : never;

/** What the reference model knows about a Thread: written from the spec, not from the engine's code. */
interface Model {
  id: string;
  status: string;
  visibility: string;
  pinned: boolean;
  featured: boolean;
  rating: number | null;
  format: string;
  createdAt: number;
  publishedAt: number | null;
  lastActivityAt: number;
  threadUpdatedAt: number;
  publishedReplies: number;
}

async function build(threads: ThreadSpec[]): Promise<Model[]> {
  const { db } = engine.context;
  for (const table of ["media", "posts", "custom_urls", "site_addresses"] as const)
    await db.deleteFrom(table).execute();
  const models: Model[] = [];
  for (const [n, spec] of threads.entries()) {
    const at = T + spec.at * 100;
    const formatFields =
      spec.format === "link"
        ? { title: `t${n}`, url: "https://example.com" }
        : spec.format === "quote"
          ? { quoteText: `q${n}` }
          : { title: `t${n}` };
    const root = await engine.posts.create({
      format: spec.format,
      ...formatFields,
      slug: `t${n}`,
      status: spec.status,
      visibility: spec.visibility,
      pinned: spec.pinned,
      featured: spec.featured,
      rating: spec.rating ?? undefined,
      createdAt: at,
      ...(spec.status === "published" ? { publishedAt: at } : {}),
    });
    const published = spec.status === "published" ? [{ at, quiet: false }] : [];
    for (const [m, replySpec] of spec.replies.entries()) {
      const replyAt = T + replySpec.at * 100;
      await engine.posts.create({
        format: "note",
        bodyMarkdown: "r",
        slug: `t${n}-r${m}`,
        replyToId: root.id,
        status: replySpec.status,
        quietReply: replySpec.quiet,
        createdAt: replyAt,
        ...(replySpec.status === "published" ? { publishedAt: replyAt } : {}),
      });
      if (replySpec.status === "published") published.push({ at: replyAt, quiet: replySpec.quiet });
    }
    const newest = (posts: { at: number }[]) => (posts.length ? Math.max(...posts.map((p) => p.at)) : at);
    models.push({
      id: root.id,
      status: spec.status,
      visibility: spec.visibility,
      pinned: spec.pinned,
      featured: spec.featured,
      rating: spec.rating,
      format: spec.format,
      createdAt: at,
      publishedAt: spec.status === "published" ? at : null,
      lastActivityAt: newest(published.filter((p) => !p.quiet)),
      threadUpdatedAt: newest(published),
      publishedReplies: spec.replies.filter((r) => r.status === "published").length,
    });
  }
  return models;
}

/** The expected list, or "invalid" when the spec says 400. */
function reference(models: Model[], query: QuerySpec): string[] | "invalid" {
  const isPublic = query.surface === "public";
  if (isPublic && query.visibility === "private") return "invalid";
  if (query.visibility === "featured" && query.sort !== undefined && query.sort !== "published")
    return "invalid";
  const sort = query.sort ?? (query.visibility === "featured" ? "published" : "activity");
  const status = isPublic ? "published" : (query.status ?? "published");
  const everything = ["public", "latest_hidden", "private"];
  const readable = ["public", "latest_hidden"];
  const visibleTo: Record<string, string[]> = {
    undefined: isPublic ? ["public"] : everything,
    public: ["public"],
    hidden: ["latest_hidden"],
    latest_hidden: ["latest_hidden"],
    private: ["private"],
    any: isPublic ? readable : everything,
    featured: isPublic ? readable : everything,
  };
  const allowed = visibleTo[String(query.visibility)] as string[];
  const kept = models.filter(
    (m) =>
      m.status === status &&
      allowed.includes(m.visibility) &&
      (query.visibility !== "featured" || m.featured) &&
      (query.format === undefined || m.format === query.format) &&
      (query.replies === undefined || (query.replies === "any") === m.publishedReplies > 0),
  );
  const time = (m: Model) => (status === "draft" ? m.createdAt : (m.publishedAt as number));
  const byId = (a: Model, b: Model) => (a.id < b.id ? 1 : -1);
  const compare: Record<string, (a: Model, b: Model) => number> = {
    activity: (a, b) =>
      Number(b.pinned) - Number(a.pinned) || b.lastActivityAt - a.lastActivityAt || byId(a, b),
    published: (a, b) => time(b) - time(a) || byId(a, b),
    oldest: (a, b) => time(a) - time(b) || -byId(a, b),
    updated: (a, b) => b.threadUpdatedAt - a.threadUpdatedAt || byId(a, b),
    rating: (a, b) => (b.rating ?? 0) - (a.rating ?? 0) || b.lastActivityAt - a.lastActivityAt || byId(a, b),
  };
  return kept.sort(compare[sort]).map((m) => m.id);
}

async function walk(query: QuerySpec): Promise<{ ids: string[]; sizes: number[] }> {
  const { surface, ...params } = query;
  const input = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
  const pages = await walkPages<{ threads: { id: string }[]; nextCursor: string | null }>((cursor) =>
    surface === "public"
      ? engine.publicThreads.list({ ...input, cursor } as never, publicCaller)
      : engine.threads.list({ ...input, cursor } as never),
  );
  return {
    ids: pages.flatMap((page) => page.threads.map((t) => t.id)),
    sizes: pages.map((p) => p.threads.length),
  };
}

describe("Thread list cursor walks (property)", () => {
  it("return every matching Thread exactly once, in the reference order, for any data, filter and page size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(threadArb, { maxLength: 9 }),
        fc.array(queryArb, { minLength: 1, maxLength: 4 }),
        async (threads, queries) => {
          const models = await build(threads);
          for (const query of queries) {
            const expected = reference(models, query);
            if (expected === "invalid") {
              const { surface, ...params } = query;
              const call =
                surface === "public"
                  ? engine.publicThreads.list(params as never, publicCaller)
                  : engine.threads.list(params as never);
              expect(await codeOf(call)).toBe("VALIDATION_ERROR");
              continue;
            }
            const { ids, sizes } = await walk(query);
            expect(ids, JSON.stringify(query)).toEqual(expected);
            // Full pages until the last one; the walk ends exactly when nothing is left.
            expect(sizes.slice(0, -1).every((size) => size === query.limit)).toBe(true);
            expect(sizes.at(-1)).toBe(expected.length === 0 ? 0 : ((expected.length - 1) % query.limit) + 1);
          }
        },
      ),
      { numRuns: testDatabaseKind() === "postgres" ? 15 : 30 },
    );
  }, 120_000);
});
