import slugifyText from "@sindresorhus/slugify";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { slugify, slugifyOptions } from "./slug.js";

/** Characters a title may hold: every printable ASCII one, and a few the library transliterates. */
const characters = [
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
  "é",
  "ß",
  "’",
  "–",
  "東",
  "\t",
];

describe("slugify", () => {
  it("gives the library's slug for any text, plain ASCII taken the short way", () => {
    const text = fc.array(fc.constantFrom(...characters), { maxLength: 40 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(text, (title) => {
        expect(slugify(title, 500)).toBe(slugifyText(title.normalize("NFKC"), slugifyOptions));
      }),
      { numRuns: 20_000 },
    );
  });

  it("gives the library's slug for words and the characters the short way leaves to it", () => {
    const words = [
      "Write",
      "bench",
      "API",
      "iPhone",
      "FOO360",
      "foo360BAR",
      "APIs",
      "x",
      "42",
      "don't",
      "R&D",
    ];
    const separators = [" ", "-", "--", " - ", "_", ".", ", ", "! ", "^", "`", "\\", "'", "&", "/", ""];
    const text = fc
      .array(fc.tuple(fc.constantFrom(...words), fc.constantFrom(...separators)), { maxLength: 8 })
      .map((parts) => parts.map(([word, separator]) => word + separator).join(""));
    fc.assert(
      fc.property(text, (title) => {
        expect(slugify(title, 500)).toBe(slugifyText(title.normalize("NFKC"), slugifyOptions));
      }),
      { numRuns: 20_000 },
    );
  });

  it("turns a plain title into lowercase words joined by hyphens", () => {
    expect(slugify("  Write bench 12: the (quire) engine!  ")).toBe("write-bench-12-the-quire-engine");
    expect(slugify("---")).toBe("");
  });

  it("keeps words whole across capitals and folds compatibility forms", () => {
    // The library's defaults gave git-hub-actions, postgre-sql-15, i-phone, i-jssel, emal and "".
    expect(slugify("GitHub Actions")).toBe("github-actions");
    expect(slugify("PostgreSQL 15")).toBe("postgresql-15");
    expect(slugify("iPhone review")).toBe("iphone-review");
    expect(slugify("Ĳssel")).toBe("ijssel");
    expect(slugify("ǅemal")).toBe("dzemal");
    expect(slugify("ＡＢＣ ｄｅｆ")).toBe("abc-def");
    expect(slugify("ﬀ café")).toBe("ff-cafe");
    expect(slugify("Über uns")).toBe("ueber-uns");
  });
});
