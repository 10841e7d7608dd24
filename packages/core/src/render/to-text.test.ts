import { describe, expect, it } from "vitest";
import { parseMarkdown } from "./parse-markdown.js";
import { mdastToText } from "./to-text.js";

const text = (markdown: string) => mdastToText(parseMarkdown(markdown));

describe("mdastToText", () => {
  it("separates blocks with a blank line and drops all markup", () => {
    expect(text("# Title\n\nSome *em* **strong** ~~del~~ `code` [link](http://x.example).\n\n> quoted")).toBe(
      "Title\n\nSome em strong del code link.\n\nquoted",
    );
  });

  it("keeps soft and hard line breaks as newlines", () => {
    expect(text("a\nb  \nc\\\nd")).toBe("a\nb\nc\nd");
  });

  it("puts list items, nested ones too, on their own lines", () => {
    expect(text("- a\n- b\n  - c\n\n1. d\n2. e")).toBe("a\nb\nc\n\nd\ne");
  });

  it("keeps code blocks as they are", () => {
    expect(text("```js\nlet a;\n\nlet b;\n```")).toBe("let a;\n\nlet b;");
  });

  it("puts table rows on lines and cells apart by tabs", () => {
    expect(text("| a | b |\n| - | - |\n| 1 | 2 |")).toBe("a\tb\n1\t2");
  });

  it("gives an image's alt text, and nothing for the excerpt break, rules and raw HTML", () => {
    expect(text("![A cat](/cat.png) sat\n\n<!--more-->\n\n---\n\n<div>hidden</div>\n\nend")).toBe(
      "A cat sat\n\nend",
    );
  });

  it("trims the result", () => {
    expect(text("\n\n  a  \n\n")).toBe("a");
    expect(text("")).toBe("");
  });
});
