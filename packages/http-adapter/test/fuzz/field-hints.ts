import fc from "fast-check";
import type { Pools } from "./fuzz-site.js";
import { oddString } from "./odd-values.js";
import type { FieldHint, JsonSchema } from "./schema-values.js";

/** ID prefixes by what a field or path parameter names. */
export type IdKind = "pst" | "med" | "upl" | "col" | "tok";

const base32 = "0123456789abcdefghjkmnpqrstvwxyz";

/** A well-formed TypeID of a prefix that names nothing on the site. */
function unknownId(prefix: string): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.integer({ min: 0, max: 7 }),
      fc.array(fc.integer({ min: 0, max: 31 }), { minLength: 25, maxLength: 25 }),
    )
    .map(([first, rest]) => `${prefix}_${first}${rest.map((digit) => base32[digit]).join("")}`);
}

/**
 * One item of a pool, read when drawn (the pools are refilled from the site between batches, the
 * arbitraries built once); `otherwise` when the pool is empty.
 */
export function drawFrom(
  list: () => readonly string[],
  otherwise: fc.Arbitrary<string>,
): fc.Arbitrary<string> {
  return fc.tuple(fc.nat(), otherwise).map(([index, other]) => {
    const items = list();
    return items.length > 0 ? (items[index % items.length] as string) : other;
  });
}

/** An ID for a field of this kind: mostly real ones, else another kind's, an unknown one or garbage. */
export function idOf(kind: IdKind, pools: Pools): fc.Arbitrary<string> {
  const real = (of: IdKind): string[] =>
    of === "pst"
      ? pools.postIds
      : of === "med"
        ? pools.mediaIds
        : of === "upl"
          ? pools.uploads.map((upload) => upload.id)
          : of === "tok"
            ? pools.tokenIds
            : [];
  const kinds: IdKind[] = ["pst", "med", "upl", "col", "tok"];
  return fc.oneof(
    { weight: 8, arbitrary: drawFrom(() => real(kind), unknownId(kind)) },
    {
      weight: 1,
      arbitrary: drawFrom(() => kinds.filter((other) => other !== kind).flatMap(real), unknownId(kind)),
    },
    { weight: 1, arbitrary: unknownId(kind) },
    { weight: 1, arbitrary: oddString() },
  );
}

/** A cursor a list gave out (from any list), one damaged, or garbage. */
export function cursorOf(pools: Pools): fc.Arbitrary<string> {
  const forged = fc
    .jsonValue({ maxDepth: 2 })
    .chain((keys) =>
      fc
        .constantFrom(
          "threads.activity",
          "threads.posts",
          "posts.published",
          "media.created",
          "threads.rating.unrated",
          "x",
        )
        .map((order) => Buffer.from(JSON.stringify({ o: order, k: keys })).toString("base64url")),
    );
  const given = drawFrom(() => pools.cursors, forged);
  const damaged = fc
    .tuple(given, fc.nat(), fc.constantFrom("cut", "append", "swap", "base64"))
    .map(([cursor, at, how]) => {
      if (how === "cut") return cursor.slice(0, at % Math.max(1, cursor.length));
      if (how === "append") return `${cursor}A`;
      if (how === "swap") return cursor.replace(/[A-Za-z]/, "_");
      return Buffer.from(cursor, "base64url").toString("base64");
    });
  return fc.oneof(
    { weight: 4, arbitrary: given },
    { weight: 2, arbitrary: damaged },
    { weight: 2, arbitrary: forged },
    { weight: 1, arbitrary: idOf("pst", pools) },
    { weight: 1, arbitrary: oddString() },
  );
}

/** A slug: a real one, one that could be, or not a slug at all. */
export function slugOf(pools: Pools): fc.Arbitrary<string> {
  const slugLike = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/);
  return fc.oneof(
    { weight: 5, arbitrary: drawFrom(() => pools.slugs, slugLike) },
    { weight: 2, arbitrary: slugLike },
    {
      weight: 1,
      arbitrary: fc.constantFrom("api", "media", "healthz", "feed", "-", "a--b", "UPPER", "x".repeat(201)),
    },
    { weight: 1, arbitrary: oddString() },
  );
}

const markdown = [
  "plain text",
  "# Title\n\nbody *em* **strong** `code`",
  "- a\n- b\n  - c",
  "| a | b |\n|---|---|\n| 1 | 2 |",
  "```js\nlet x = 1;\n```",
  "[link](javascript:alert(1)) ![img](data:image/png;base64,AAAA)",
  "<script>alert(1)</script><img src=x onerror=alert(1)>",
  "before<!--more-->after",
  "> quote\n>> nested",
  "line  \nbreak\\\nagain",
  "[a]: http://x\n[a]",
];

const editorDocs = [
  '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"hi"}]}]}',
  '{"type":"doc","content":[]}',
  '{"type":"doc"}',
  '{"type":"paragraph"}',
  '{"type":"doc","content":[{"type":"heading","attrs":{"level":99},"content":[{"type":"text","text":"h"}]}]}',
  '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"x","marks":[{"type":"link","attrs":{"href":"javascript:alert(1)"}}]}]}]}',
  '{"type":"doc","content":[{"type":"unknownNode","content":"nope"}]}',
  '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text"}]}]}',
  '{"type":"doc","content":[{"type":"image","attrs":{"src":"x","alt":null}}]}',
  `{"type":"doc","content":${'[{"type":"blockquote","content":'.repeat(12)}[]${"}]".repeat(12)}}`,
  // Escapes of text no database stores (500 on PostgreSQL before), and an escaped pair that is fine.
  '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"a\\u0000b"}]}]}',
  '{"type":"doc","content":[{"type":"image","attrs":{"src":"/i.png","alt":"\\ud800"}}]}',
  '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"\\ud83d\\ude00"}]}]}',
  "[]",
  "not json",
];

/**
 * Field values the JSON Schema cannot describe: IDs of the site, cursors it gave out, slugs,
 * Markdown and editor documents, URLs, file names and types.
 */
export function fieldHints(pools: Pools): FieldHint {
  return (field: string, _schema: JsonSchema) => {
    switch (field) {
      case "replyToId":
      case "postId":
        return fc.option(idOf("pst", pools), { nil: null });
      case "mediaId":
        return idOf("med", pools);
      case "collectionId":
      case "collectionIds[]":
        return idOf("col", pools);
      case "cursor":
        return cursorOf(pools);
      case "slug":
        return slugOf(pools);
      case "path":
        return fc.oneof(
          fc.stringMatching(/^[a-z0-9][a-z0-9\-./]{0,30}$/),
          fc.constantFrom("api/posts", "media/x.png", "healthz", "a//b", "a/../b", "./x", "x/"),
          oddString(),
        );
      case "url":
      case "sourceUrl":
        return fc.oneof(
          fc.webUrl(),
          fc.constantFrom(
            "mailto:a@example.com",
            "javascript:alert(1)",
            "ftp://x",
            "http://[::1",
            "//x",
            "http://例え.jp/",
          ),
          oddString(),
        );
      case "body":
        return fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...editorDocs) },
          oddString(),
          fc.constant(null),
        );
      case "bodyMarkdown":
      case "content":
      case "quoteText":
        return fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...markdown) },
          fc.string({ maxLength: 200 }),
          oddString(),
        );
      case "language":
      case "lang":
        return fc.oneof(
          fc.constantFrom("en", "zh-CN", "de-DE-1996", "EN", "e", "en_US", "x-klingon"),
          oddString(),
        );
      case "checksumSha256":
        return fc.oneof(
          fc
            .uint8Array({ minLength: 32, maxLength: 32 })
            .map((bytes) => Buffer.from(bytes).toString("base64")),
          oddString(),
        );
      case "etag":
        return fc.oneof(
          drawFrom(() => pools.etags, oddString()),
          oddString(),
        );
      case "filename":
        return fc.oneof(
          fc.constantFrom(
            "a.png",
            "b.jpg",
            "clip.mp4",
            "notes.txt",
            "x.pdf",
            "archive.tar.gz",
            "日本.png",
            "💥.webp",
          ),
          fc.constantFrom(
            "",
            ".",
            "..",
            "../../x.png",
            "a\\b.png",
            "con.png",
            "a\u0000.png",
            "x".repeat(300),
          ),
          oddString(),
        );
      case "contentType":
      case "posterContentType":
        return fc.oneof(
          fc.constantFrom(
            "image/png",
            "image/jpeg",
            "image/webp",
            "video/mp4",
            "audio/mp4",
            "application/pdf",
          ),
          fc.constantFrom(
            "image/gif",
            "image/svg+xml",
            "text/html",
            "application/octet-stream",
            "IMAGE/PNG",
            "image/png; charset=x",
          ),
          oddString(),
        );
      case "mimePrefix":
        return fc.oneof(fc.constantFrom("image/", "video", "text/", "", "%", "_"), oddString());
      default:
        return undefined;
    }
  };
}
