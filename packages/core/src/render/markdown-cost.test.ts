import { describe, expect, it } from "vitest";
import { inlineCost } from "./inline-cost.js";
import { measureMarkdown } from "./markdown-cost.js";

const measure = (markdown: string) => measureMarkdown(markdown, { maxLineMarkers: 100 });

describe("measureMarkdown: containers", () => {
  it("counts the containers a line opens and how deep they nest", () => {
    expect(measure("> > - a\n> > - b")).toMatchObject({ widestLine: 3, nesting: 3 });
    const stairs = Array.from({ length: 300 }, (_, depth) => `${"  ".repeat(depth)}- a`).join("\n");
    expect(measure(stairs)).toMatchObject({ widestLine: 1, nesting: 300 });
  });

  it("counts no block work for flat lists, continued quotes or items opening containers", () => {
    expect(measure("- a\n- b\n- c\n\n1. a\n2. b").blockWork).toBe(0);
    expect(measure("> a\n> b\n>\n> c").blockWork).toBe(0);
    expect(measure("- a\n  > b\n  - c").blockWork).toBe(0);
  });

  it("counts the events so far for each line that closes containers the slow way or is lazy", () => {
    const once = measure("> a\n# b").blockWork;
    expect(once).toBeGreaterThan(0);
    expect(measure("> a\nb").blockWork).toBe(once);
    expect(measure("> a\n\nb").blockWork).toBeGreaterThan(0);
    expect(measure("- a\n  - b\n- c").blockWork).toBeGreaterThan(0);
    expect(measure("[^1]: a\n\nb").blockWork).toBeGreaterThan(0);
    expect(measure("[^1]: a\n\n    b").blockWork).toBe(0);
  });

  it("counts the events so far for each line that may underline a heading", () => {
    expect(measure("a\n---").blockWork).toBeGreaterThan(0);
    expect(measure("a\n-").blockWork).toBe(measure("a\n===").blockWork);
    expect(measure("a\n\n---\n\n- - -").blockWork).toBe(0);
  });

  it("grows with the square of the closings", () => {
    const work = (count: number) => measure("> a\n# h\n".repeat(count)).blockWork;
    expect(work(2000) / work(200)).toBeGreaterThan(90);
  });

  it("leaves out fenced code", () => {
    expect(measure("```diff\n- a\n+ b\n- c\n+ d\n```")).toMatchObject({
      widestLine: 0,
      nesting: 0,
      blockWork: 0,
    });
  });
});

describe("measureMarkdown: inline work", () => {
  it("sums the inline cost of the runs of lines between blank lines", () => {
    const text = "a [b] c\nd *e*\n\n`f`";
    expect(measure(text).inlineWork).toBe(inlineCost(text, 0, 14).work + inlineCost(text, 15).work);
  });

  it("ends a run at a list item with text", () => {
    const text = "[a]\n- [b]\n* [c]\n1. [d]\n2. [e]";
    expect(measure(text).inlineWork).toBe(
      inlineCost("[a]\n").work +
        inlineCost("- [b]\n").work +
        inlineCost("* [c]\n").work +
        inlineCost("1. [d]\n2. [e]").work,
    );
  });

  it("counts each row of a plain table on its own", () => {
    const rows = "| [a] | *b* |\n".repeat(100);
    const table = `| x | y |\n| - | - |\n${rows}`;
    const parts = ["| x | y |\n", "| - | - |\n", ...Array(100).fill("| [a] | *b* |\n")];
    expect(measure(table).inlineWork).toBeCloseTo(
      parts.reduce((sum, part) => sum + inlineCost(part).work, 0),
      6,
    );
    // With a delimiter row that does not match the header, it is one paragraph.
    const paragraph = `| x | y |\n| - |\n${rows}`;
    expect(measure(paragraph).inlineWork).toBe(inlineCost(paragraph).work);
  });

  it("leaves out fenced code, but not code it cannot be sure of", () => {
    expect(measure("```\n[[[ a_ a_ ]]]\n```").inlineWork).toBe(0);
    expect(measure("  ```\n  [[[\n  ```\n```\n]]]\n```").inlineWork).toBeGreaterThan(0);
  });

  it("reports the line work apart", () => {
    const text = "a\nb\nc";
    expect(measure(text)).toMatchObject({
      inlineWork: inlineCost(text).work,
      inlineLineWork: inlineCost(text).lineWork,
    });
  });
});

describe("measureMarkdown: references", () => {
  it("multiplies closing brackets by definitions", () => {
    expect(measure("[a] [b] [c]\n\n[a]: /a\n[b]: /b").referenceWork).toBe(5 * 2);
    expect(measure("[a] [b]").referenceWork).toBe(0);
  });
});
