import { describe, expect, it } from "vitest";
import { parseMarkdown } from "./parse-markdown.js";

const withoutPositions = (value: unknown) =>
  JSON.parse(JSON.stringify(value, (key, inner) => (key === "position" ? undefined : inner)));

describe("resolveReferences", () => {
  it("turns reference links and images into plain ones and drops definitions", () => {
    const tree = parseMarkdown('[a][one] [one] ![b][one]\n\n[one]: http://x.example "T"');
    expect(withoutPositions(tree.children)).toEqual([
      {
        type: "paragraph",
        children: [
          { type: "link", url: "http://x.example", title: "T", children: [{ type: "text", value: "a" }] },
          { type: "text", value: " " },
          { type: "link", url: "http://x.example", title: "T", children: [{ type: "text", value: "one" }] },
          { type: "text", value: " " },
          { type: "image", url: "http://x.example", title: "T", alt: "b" },
        ],
      },
    ]);
  });

  it("uses the first definition of a label, as CommonMark does", () => {
    const tree = parseMarkdown("[a][x]\n\n[x]: http://first.example\n[X]: http://second.example");
    expect(withoutPositions(tree.children[0])).toMatchObject({ children: [{ url: "http://first.example" }] });
  });

  it("keeps footnotes as their literal text", () => {
    const tree = parseMarkdown("Note[^1] here.\n\n[^1]: The *note*.");
    expect(withoutPositions(tree.children)).toEqual([
      {
        type: "paragraph",
        children: [
          { type: "text", value: "Note" },
          { type: "text", value: "[^1]" },
          { type: "text", value: " here." },
        ],
      },
      {
        type: "paragraph",
        children: [
          { type: "text", value: "[^1]: " },
          { type: "text", value: "The " },
          { type: "emphasis", children: [{ type: "text", value: "note" }] },
          { type: "text", value: "." },
        ],
      },
    ]);
  });
});
