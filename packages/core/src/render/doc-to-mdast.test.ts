import { describe, expect, it } from "vitest";
import { docToMdast } from "./doc-to-mdast.js";
import type { DocNode } from "./editor-doc.js";
import { mdastToMarkdown } from "./to-markdown.js";

const markdownOf = (...content: object[]) => mdastToMarkdown(docToMdast({ type: "doc", content } as DocNode));
const text = (value: string, ...marks: object[]) => ({ type: "text", text: value, marks });
const paragraph = (...content: object[]) => ({ type: "paragraph", content });
const item = (...content: object[]) => ({ type: "listItem", content });

describe("docToMdast: blocks", () => {
  it("converts paragraphs and headings of every level", () => {
    expect(markdownOf(paragraph(text("a")), paragraph(text("b")))).toBe("a\n\nb");
    const headings = [1, 2, 3, 4, 5, 6].map((level) => ({
      type: "heading",
      attrs: { level },
      content: [text(`h${level}`)],
    }));
    expect(markdownOf(...headings)).toBe("# h1\n\n## h2\n\n### h3\n\n#### h4\n\n##### h5\n\n###### h6");
  });

  it("clamps a heading level out of range and defaults a missing one", () => {
    expect(markdownOf({ type: "heading", attrs: { level: 9 }, content: [text("a")] })).toBe("###### a");
    expect(markdownOf({ type: "heading", content: [text("a")] })).toBe("# a");
  });

  it("converts bullet and ordered lists, nested, tight unless an item holds more than a nested list", () => {
    const nested = { type: "orderedList", attrs: { start: 4 }, content: [item(paragraph(text("c")))] };
    expect(
      markdownOf({
        type: "bulletList",
        content: [item(paragraph(text("a"))), item(paragraph(text("b")), nested)],
      }),
    ).toBe("- a\n- b\n\n  4. c");
    expect(
      markdownOf({
        type: "bulletList",
        content: [item(paragraph(text("a")), paragraph(text("more"))), item(paragraph(text("b")))],
      }),
    ).toBe("- a\n\n  more\n\n- b");
    expect(markdownOf({ type: "orderedList", content: [item(paragraph(text("x")))] })).toBe("1. x");
  });

  it("converts blockquotes, code blocks, rules and the excerpt break", () => {
    expect(
      markdownOf(
        { type: "blockquote", content: [paragraph(text("q"))] },
        { type: "codeBlock", attrs: { language: "py" }, content: [text("print(1)")] },
        { type: "codeBlock", content: [text("a"), { type: "hardBreak" }, text("b")] },
        { type: "horizontalRule" },
        { type: "readMore" },
      ),
    ).toBe("> q\n\n```py\nprint(1)\n```\n\n```\na\nb\n```\n\n---\n\n<!--more-->");
  });

  it("keeps one word of a code block's language, without backticks", () => {
    expect(markdownOf({ type: "codeBlock", attrs: { language: " ja`va extra" }, content: [text("x")] })).toBe(
      "```java\nx\n```",
    );
  });

  it("converts tables: first row as header, alignment from it, short rows padded, pipes escaped", () => {
    const cell = (type: string, value: string, align?: string) => ({
      type,
      ...(align ? { attrs: { align } } : {}),
      content: [paragraph(text(value))],
    });
    const table = {
      type: "table",
      content: [
        { type: "tableRow", content: [cell("tableHeader", "a", "right"), cell("tableHeader", "b")] },
        { type: "tableRow", content: [cell("tableCell", "x | y")] },
      ],
    };
    expect(markdownOf(table)).toBe("|      a | b |\n| -----: | - |\n| x \\| y |   |");
  });

  it("joins several paragraphs of a cell, and its line breaks, with spaces", () => {
    const cell = {
      type: "tableCell",
      content: [paragraph(text("a"), { type: "hardBreak" }, text("b\nc")), paragraph(text("d"))],
    };
    const table = { type: "table", content: [{ type: "tableRow", content: [cell] }] };
    expect(markdownOf(table)).toBe("| a b c d |\n| ------- |");
  });

  it("drops empty paragraphs, headings, blockquotes, lists and tables", () => {
    expect(
      markdownOf(
        { type: "paragraph" },
        { type: "heading", attrs: { level: 1 } },
        { type: "blockquote", content: [{ type: "paragraph" }] },
        { type: "bulletList", content: [] },
        { type: "table", content: [] },
        paragraph(text("only")),
      ),
    ).toBe("only");
  });
});

describe("docToMdast: leniency inside the document", () => {
  it("replaces unknown nodes by their content, keeping their text", () => {
    expect(
      markdownOf(
        {
          type: "taskList",
          content: [{ type: "taskItem", attrs: { checked: true }, content: [paragraph(text("task"))] }],
        },
        paragraph(text("a "), { type: "mention", attrs: { id: "x" } }, { type: "emoji", text: "🙂" }),
        { type: "details", content: [{ type: "detailsSummary", content: [text("summary")] }] },
      ),
    ).toBe("task\n\na 🙂\n\nsummary");
  });

  it("gathers inline nodes found among blocks into paragraphs", () => {
    expect(markdownOf(text("loose"), { type: "hardBreak" }, text("text"), { type: "horizontalRule" })).toBe(
      "loose\\\ntext\n\n---",
    );
  });

  it("accepts an image at block level (TipTap's default) as a paragraph holding it", () => {
    expect(markdownOf({ type: "image", attrs: { src: "/a.png", alt: "A" } })).toBe("![A](/a.png)");
  });

  it("flattens blocks misplaced in inline content, and list content outside list items", () => {
    expect(markdownOf(paragraph(text("a"), paragraph(text("b"))))).toBe("a\\\nb");
    expect(markdownOf({ type: "bulletList", content: [paragraph(text("x"))] })).toBe("- x");
    expect(markdownOf({ type: "listItem", content: [paragraph(text("stray"))] })).toBe("stray");
  });

  it("ignores unknown marks and bad attributes", () => {
    expect(
      markdownOf(
        paragraph(text("u", { type: "underline" }), text("l", { type: "link", attrs: { href: 5 } })),
      ),
    ).toBe("ul");
    expect(
      markdownOf({ type: "orderedList", attrs: { start: -3 }, content: [item(paragraph(text("x")))] }),
    ).toBe("1. x");
    expect(markdownOf(paragraph({ type: "image", attrs: { alt: "no src" } }), paragraph(text("after")))).toBe(
      "after",
    );
  });
});

describe("docToMdast: unsafe URLs", () => {
  it("drops links to script URLs but keeps their text", () => {
    for (const href of [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "java\tscript:alert(1)",
      " javascript:x",
      "vbscript:x",
      "data:text/html,x",
    ]) {
      expect(markdownOf(paragraph(text("click", { type: "link", attrs: { href } })))).toBe("click");
    }
  });

  it("drops images with script or data URLs", () => {
    for (const src of ["javascript:alert(1)", "data:image/png;base64,AAAA", "DATA:image/png;base64,AAAA"]) {
      expect(markdownOf(paragraph(text("a"), { type: "image", attrs: { src } }, text("b")))).toBe("ab");
    }
  });
});
