import { describe, expect, it } from "vitest";
import { EngineError } from "../errors.js";
import { parseMarkdown } from "./parse-markdown.js";

describe("parseMarkdown", () => {
  it("parses GFM tables, strikethrough and autolink literals", () => {
    const tree = parseMarkdown("| a |\n| - |\n| b |\n\n~~gone~~ www.example.com");
    expect(tree.children.map((node) => node.type)).toEqual(["table", "paragraph"]);
    expect(tree.children[1]).toMatchObject({
      children: [
        { type: "delete" },
        { type: "text", value: " " },
        { type: "link", url: "http://www.example.com" },
      ],
    });
  });

  it("leaves no raw HTML or definitions in the tree", () => {
    const serialised = JSON.stringify(parseMarkdown("<p>x</p>\n\na <b>b</b>\n\n[r]: http://r.example"));
    expect(serialised).not.toContain('"html"');
    expect(serialised).not.toContain('"definition"');
  });

  it("rejects Markdown nested past the limit as a bodyMarkdown validation error", () => {
    const deep = `${"> ".repeat(250)}x`;
    expect(() => parseMarkdown(deep)).toThrow(EngineError);
    try {
      parseMarkdown(deep);
    } catch (error) {
      expect((error as EngineError).details).toMatchObject({
        fieldErrors: { bodyMarkdown: [expect.any(String)] },
      });
    }
  });
});

describe("long lines of markers", () => {
  it("keeps a thematic break however long, as it opens no container", () => {
    for (const markdown of ["-".repeat(120), "*".repeat(300), `${"- ".repeat(150)}-`]) {
      expect(parseMarkdown(markdown).children.map((node) => node.type)).toEqual(["thematicBreak"]);
    }
  });

  it("names the field it is given when it refuses", () => {
    expect(() => parseMarkdown(`${"> ".repeat(150)}x`, "content")).toThrow(
      expect.objectContaining({
        details: expect.objectContaining({ fieldErrors: { content: [expect.any(String)] } }),
      }),
    );
  });
});

describe("hostile nesting", () => {
  it("refuses lines that stack 100 or more containers before parsing", () => {
    for (const markdown of [`${"- ".repeat(3000)}x`, `${"> ".repeat(150)}x`, `${"1. ".repeat(120)}x`]) {
      expect(() => parseMarkdown(markdown)).toThrow(EngineError);
    }
    expect(() => parseMarkdown(`${"- ".repeat(20)}x`)).not.toThrow();
  });
});
