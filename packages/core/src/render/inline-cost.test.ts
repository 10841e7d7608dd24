import { describe, expect, it } from "vitest";
import { backtickWeight, inlineCost, lineDivisor } from "./inline-cost.js";

const work = (text: string) => inlineCost(text).work;

describe("inlineCost", () => {
  it("costs nothing for one line of plain text", () => {
    expect(work("just words, and (parentheses) or !")).toBe(0);
  });

  it("costs the length for each bracket, `<` and run of emphasis marks", () => {
    expect(work("[a]")).toBe(2 * 3);
    expect(work("***a***")).toBe(2 * 7);
    expect(work("a < b")).toBe(5);
    expect(work("~~a~~ _b_")).toBe(4 * 9);
  });

  it("grows with the square of a paragraph's length when marks fill it", () => {
    expect(work("a_ ".repeat(2000))).toBe(100 * work("a_ ".repeat(200)));
  });

  it("costs each line a share of the length, for merging its text", () => {
    const text = "a\nb\nc";
    expect(inlineCost(text)).toEqual({ work: (2 / lineDivisor) * 5, lineWork: (2 / lineDivisor) * 5 });
    expect(inlineCost("a\r\nb").lineWork).toBe(4 / lineDivisor);
  });

  it("costs each run of backticks as a mark, and the distance to its closing run", () => {
    expect(work("`a` b")).toBe(2 * 5 + backtickWeight * (2 + 5 - 2));
    expect(work("``a`")).toBe(2 * 4 + backtickWeight * (4 + 1));
    expect(work("a ``` b")).toBe(7 + backtickWeight * 5);
  });

  it("reads an escaped backtick's run as one shorter", () => {
    // `\``: the opening run is one backtick long, and no run of one follows.
    expect(work("\\`` x ``")).toBe(3 * 8 + backtickWeight * (8 - 1 + (8 - 6)));
    expect(work("\\\\`` x ``")).toBe(4 * 9 + backtickWeight * (7 - 2 + (9 - 7)));
  });

  it("counts escapes, references and bare links as marks", () => {
    expect(work("a \\* b")).toBe(2 * 6);
    expect(work("&amp; a@b.co")).toBe(2 * 12);
    expect(work("see http://a.co or WWW.b.co")).toBe(2 * 27);
  });

  it("measures only the range asked for", () => {
    const text = "[[[ plain ]]]";
    expect(inlineCost(text, 3, 10).work).toBe(0);
    expect(inlineCost(text, 0, 3).work).toBe(9);
  });
});
