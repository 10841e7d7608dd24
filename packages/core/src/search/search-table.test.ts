import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../engine.js";
import { isEngineError } from "../errors.js";
import { createTestEngine } from "../testing/test-engine.js";
import { searchIndexOf } from "./search-index-registry.js";
import { queryTerms, searchTextOf } from "./search-text.js";

/**
 * One table of queries with the exact set of posts each must find, run unchanged on SQLite and on
 * PostgreSQL (`node scripts/test.mjs`): both databases give the same result sets. The limit is the
 * maximum, above every expected set's size, so ranking cannot change which posts are returned.
 */
const corpus = {
  pasta: {
    format: "note",
    title: "Cooking pasta",
    bodyMarkdown: "Boil water, add salt. The pasta cooks in ten minutes.",
  },
  cafe: { format: "note", bodyMarkdown: "Rain is wet. Café culture in Paris; crème brûlée after." },
  sushi: { format: "note", bodyMarkdown: "今日は東京で寿司を食べた。" },
  tower: { format: "note", bodyMarkdown: "東京タワーに行きました" },
  punct: {
    format: "note",
    bodyMarkdown: 'He said "hello, world" and left. C++ rules; a-b test key:value 50% off_now (sic) it\'s',
  },
  ops: { format: "note", bodyMarkdown: "NEAR the river * stars - dash" },
  quote: { format: "quote", quoteText: "To be or not to be", sourceName: "Hamlet" },
  link: { format: "link", title: "Kysely docs", url: "https://kysely.dev/docs" },
  secret: { format: "note", visibility: "private", bodyMarkdown: "secret pasta recipe" },
  hidden: { format: "note", visibility: "latest_hidden", bodyMarkdown: "Quiet garden notes" },
  scripts: { format: "note", bodyMarkdown: "ΟΔΟΣ İstanbul Straße ＡＢＣ naïve" },
  draft: { format: "note", status: "draft", bodyMarkdown: "draft pasta secret" },
} as const;

type Key = keyof typeof corpus | "reply";

const cases: [query: string, expected: Key[]][] = [
  // English, case and several terms (every term must match)
  ["pasta", ["pasta", "secret", "reply"]],
  ["PASTA", ["pasta", "secret", "reply"]],
  ["pasta water", ["pasta"]],
  ["water pasta", ["pasta"]],
  ["pasta  sauce", ["reply"]],
  ["pasta nothing", []],
  ["recipe", ["secret"]],
  ["garden", ["hidden"]],
  ["draft", []],
  ["hamlet", ["quote"]],
  ["kysely.dev", ["link"]],
  ["docs", ["link"]],
  // accents fold both ways
  ["cafe", ["cafe"]],
  ["café", ["cafe"]],
  ["CAFÉ", ["cafe"]],
  ["creme brulee", ["cafe"]],
  ["naive", ["scripts"]],
  ["naïve", ["scripts"]],
  // other scripts: Greek capitals, dotted I, sharp s (not expanded), full-width Latin
  ["οδος", ["scripts"]],
  ["istanbul", ["scripts"]],
  ["straße", ["scripts"]],
  ["strasse", []],
  ["abc", ["scripts"]],
  ["ＡＢＣ", ["scripts"]],
  // CJK: two-character words fall back to a substring match; longer ones use the index
  ["東京", ["sushi", "tower"]],
  ["寿司", ["sushi"]],
  ["東京 寿司", ["sushi"]],
  ["東京タワー", ["tower"]],
  ["京", ["sushi", "tower"]],
  ["大阪", []],
  // punctuation and quotes are text
  ['"hello', ["punct"]],
  ['"hello, world"', ["punct"]],
  ["hello world", ["punct"]],
  ['"', ["punct"]],
  ["c++", ["punct"]],
  ["(sic)", ["punct"]],
  ["(pasta)", []],
  ["it's", ["punct"]],
  ["'", ["punct"]],
  ["key:value", ["punct"]],
  ["50%", ["punct"]],
  ["%", ["punct"]],
  ["l%o", []],
  ["f_n", ["punct"]],
  ["_", ["punct"]],
  ["o_w", []],
  ["\\", []],
  // FTS5 operators are text
  ["NEAR", ["ops"]],
  ["NEAR(pasta water)", []],
  ["pasta NEAR water", []],
  ["pasta OR water", []],
  ["pasta AND water", []],
  ["NOT", ["quote", "hidden"]],
  ["*", ["ops"]],
  ["past*", []],
  ["-", ["punct", "ops"]],
  ["-pasta", []],
  ["a-b", ["punct"]],
  [":", ["punct", "link"]],
  ["title:pasta", []],
  ["search_text:pasta", []],
  ["^pasta", []],
  ["{pasta}", []],
  // short terms combine with indexed ones
  ["to be", ["quote"]],
  ["be hamlet", ["quote"]],
  ["ri stars", ["ops"]],
];

let engine: Engine;
let cleanup: () => Promise<void>;
const ids = new Map<string, Key>();

beforeAll(async () => {
  const site = await createTestEngine({ now: 1_700_000_000 });
  engine = site.engine;
  cleanup = site.cleanup;
  for (const [key, input] of Object.entries(corpus)) {
    const post = await engine.posts.create(input as Parameters<Engine["posts"]["create"]>[0]);
    ids.set(post.id, key as Key);
  }
  const root = [...ids].find(([, key]) => key === "pasta")?.[0] as string;
  const reply = await engine.posts.create({ format: "note", replyToId: root, bodyMarkdown: "Pasta sauce" });
  ids.set(reply.id, "reply");
});

afterAll(() => cleanup());

/**
 * Every case twice on SQLite: first by scan (the index thread has not started: too few posts),
 * then through the FTS5 index once the thread has read every post (search/sqlite-search-index.ts).
 * Both must find exactly the same posts. On PostgreSQL both passes use its one index.
 */
describe.each([
  ["before the index has read the posts", false],
  ["through the index, once it has read them all", true],
] as const)("%s", (_phase, indexed) => {
  beforeAll(async () => {
    if (indexed) await searchIndexOf(engine.context.db)?.caughtUp();
  });

  describe("posts.search: the same result sets on both databases", () => {
    it.each(cases)("%j", async (q, expected) => {
      const answer = await engine.posts.search({ q, limit: 50 });
      const found = answer.results.map((result) => ids.get(result.id) ?? result.id);
      expect(new Set(found)).toEqual(new Set(expected));
      expect(found).toHaveLength(expected.length);
      expect(answer.count).toBe(expected.length);
      expect(answer.query).toBe(q.trim());
    });
  });

  describe("posts.search: any query text", () => {
    it("finds exactly the published posts whose folded text holds every term, and never fails otherwise", async () => {
      // The oracle: the stored search text of every published post, read back, tested in JavaScript.
      const rows = await engine.context.db
        .selectFrom("posts")
        .select([
          "id",
          "status",
          "title",
          "source_name",
          "quote_text",
          "body_text",
          "summary",
          "url",
          "source_url",
        ])
        .execute();
      const texts = rows
        .filter((row) => row.status === "published")
        .map((row) => [row.id, searchTextOf(row)] as const);
      const pieces = texts.flatMap(([, text]) => text.split(/\s+/)).filter((piece) => piece.length > 0);
      const piece = fc
        .constantFrom(...pieces)
        .chain((word) =>
          fc
            .tuple(fc.nat(word.length), fc.nat(word.length))
            .map(([a, b]) => word.slice(Math.min(a, b), Math.max(a, b) + 1)),
        );
      const odd = fc.constantFrom(
        '"',
        "*",
        "-",
        ":",
        "^",
        "(",
        ")",
        "%",
        "_",
        "\\",
        "'",
        "NEAR",
        "OR",
        "É",
        "東",
        "ς",
        "Σ",
        " ",
      );
      const query = fc
        .array(fc.oneof(piece, odd, fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 4 })
        .map((parts) => parts.join(" "));
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          let answer: Awaited<ReturnType<Engine["posts"]["search"]>>;
          try {
            answer = await engine.posts.search({ q, limit: 50 });
          } catch (err) {
            // Only input the rules refuse: blank, NUL, a lone surrogate.
            expect(isEngineError(err) && err.code === "VALIDATION_ERROR", String(err)).toBe(true);
            return;
          }
          const terms = queryTerms(q);
          const expected = texts
            .filter(([, text]) => terms.every((term) => text.includes(term)))
            .map(([id]) => id);
          expect(new Set(answer.results.map((r) => r.id))).toEqual(new Set(expected.slice(0, 50)));
          expect(answer.count).toBe(Math.min(expected.length, 50));
        }),
        { numRuns: 150, seed: 20261124 },
      );
    });
  });
});
