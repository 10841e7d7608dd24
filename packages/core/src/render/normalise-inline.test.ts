import { describe, expect, it } from "vitest";
import type { KnownMark } from "./marks.js";
import { type InlineItem, normaliseInline, normaliseInlineFully } from "./normalise-inline.js";

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

  it("takes its shortcut only where the full pass gives the same items", () => {
    // A seeded linear congruential source, so a failing list can be run again.
    let state = 7;
    const below = (count: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) % count;
    };
    const values = ["a", "b c", " a", "a ", "\u00a0a", "a\t", "", " ", "a\nb", "\n", "x  y"];
    const markSets: KnownMark[][] = [
      [],
      [{ type: "bold" }],
      [{ type: "italic" }],
      [{ type: "bold" }, { type: "code" }],
      [{ type: "link", href: "/x", title: null }],
      [{ type: "link", href: "/x", title: null }, { type: "strike" }],
    ];
    let shortcuts = 0;
    for (let round = 0; round < 20_000; round++) {
      const items: InlineItem[] = Array.from({ length: below(5) }, (): InlineItem => {
        const marks = markSets[below(markSets.length)]!;
        const roll = below(10);
        if (roll === 0) return { kind: "break", marks };
        if (roll === 1) return { kind: "image", url: "/i.png", alt: "", title: null, marks };
        return { kind: "text", value: values[below(values.length)]!, marks };
      });
      const context = (["paragraph", "heading", "cell"] as const)[below(3)]!;
      const got = normaliseInline(items, context);
      if (got === items) shortcuts++;
      expect(got, JSON.stringify({ items, context })).toEqual(normaliseInlineFully(items, context));
    }
    expect(shortcuts).toBeGreaterThan(1000);
  });
});
