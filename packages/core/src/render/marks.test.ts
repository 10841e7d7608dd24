import { describe, expect, it } from "vitest";
import { readMarks, sameMarks, toDocMark } from "./marks.js";

describe("marks", () => {
  it("keeps known marks once, in the order link, bold, italic, strike, code", () => {
    const marks = readMarks([
      { type: "code" },
      { type: "underline" },
      { type: "italic" },
      { type: "bold" },
      { type: "link", attrs: { href: "/a", title: "" } },
      { type: "strike" },
      { type: "bold" },
    ]);
    expect(marks).toEqual([
      { type: "link", href: "/a", title: null },
      { type: "bold" },
      { type: "italic" },
      { type: "strike" },
      { type: "code" },
    ]);
  });

  it("drops links without a usable href", () => {
    expect(readMarks([{ type: "link" }, { type: "link", attrs: { href: "javascript:x" } }])).toEqual([]);
  });

  it("compares links by href and title", () => {
    const a = readMarks([{ type: "link", attrs: { href: "/a" } }]);
    expect(sameMarks(a, readMarks([{ type: "link", attrs: { href: "/a" } }]))).toBe(true);
    expect(sameMarks(a, readMarks([{ type: "link", attrs: { href: "/a", title: "T" } }]))).toBe(false);
  });

  it("writes links with a title only when there is one", () => {
    expect(toDocMark({ type: "link", href: "/a", title: null })).toEqual({
      type: "link",
      attrs: { href: "/a" },
    });
    expect(toDocMark({ type: "link", href: "/a", title: "T" })).toEqual({
      type: "link",
      attrs: { href: "/a", title: "T" },
    });
  });
});
