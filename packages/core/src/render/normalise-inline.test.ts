import { describe, expect, it } from "vitest";
import { type InlineItem, normaliseInline } from "./normalise-inline.js";

const text = (value: string, ...types: Array<"bold" | "italic" | "strike" | "code">): InlineItem => ({
  kind: "text",
  value,
  marks: types.map((type) => ({ type })),
});
const hardBreak: InlineItem = { kind: "break", marks: [] };

describe("normaliseInline", () => {
  it("moves whitespace out of emphasis but not out of code", () => {
    expect(normaliseInline([text("a"), text(" b ", "bold"), text("c")], "paragraph")).toEqual([
      text("a "),
      text("b", "bold"),
      text(" c"),
    ]);
    expect(normaliseInline([text("a"), text(" b ", "bold", "code"), text("c")], "paragraph")).toEqual([
      text("a"),
      text(" b ", "bold", "code"),
      text("c"),
    ]);
  });

  it("trims line edges, collapses blank lines and drops breaks at either end", () => {
    expect(normaliseInline([hardBreak, text(" a \n \n b "), hardBreak], "paragraph")).toEqual([text("a\nb")]);
  });

  it("keeps a blank line only between two hard breaks", () => {
    expect(normaliseInline([text("a"), hardBreak, hardBreak, text("b")], "paragraph")).toEqual([
      text("a"),
      hardBreak,
      hardBreak,
      text("b"),
    ]);
    expect(normaliseInline([text("a\n"), hardBreak, text("b")], "paragraph")).toEqual([
      text("a"),
      hardBreak,
      text("b"),
    ]);
  });

  it("turns line breaks into single spaces in headings and cells", () => {
    for (const context of ["heading", "cell"] as const) {
      expect(normaliseInline([text("a\n\nb"), hardBreak, hardBreak, text("c")], context)).toEqual([
        text("a b c"),
      ]);
    }
  });

  it("joins neighbouring text with the same marks", () => {
    expect(normaliseInline([text("a", "bold"), text("b", "bold"), text("c")], "paragraph")).toEqual([
      text("ab", "bold"),
      text("c"),
    ]);
  });
});
