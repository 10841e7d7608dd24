import { describe, expect, it } from "vitest";
import type { DocNode } from "./editor-doc.js";
import { mdastToDoc } from "./mdast-to-doc.js";
import { parseMarkdown } from "./parse-markdown.js";

const toDoc = (markdown: string): DocNode[] => mdastToDoc(parseMarkdown(markdown)).content ?? [];
const inline = (markdown: string): DocNode[] => toDoc(markdown)[0]?.content ?? [];

describe("mdastToDoc: blocks", () => {
  it("makes paragraphs, keeping a soft line break as a newline in the text", () => {
    expect(toDoc("one\ntwo\n\nthree")).toEqual([
      { type: "paragraph", content: [{ type: "text", text: "one\ntwo" }] },
      { type: "paragraph", content: [{ type: "text", text: "three" }] },
    ]);
  });

  it("makes headings of every level", () => {
    const levels = toDoc("# 1\n\n## 2\n\n### 3\n\n#### 4\n\n##### 5\n\n###### 6").map(
      (node) => node.attrs?.level,
    );
    expect(levels).toEqual([1, 2, 3, 4, 5, 6]);
    expect(toDoc("Title\n---")[0]).toEqual({
      type: "heading",
      attrs: { level: 2 },
      content: [{ type: "text", text: "Title" }],
    });
  });

  it("makes bullet and ordered lists, nested, with their start", () => {
    expect(toDoc("- a\n  1. b\n\n3. c")).toEqual([
      {
        type: "bulletList",
        content: [
          {
            type: "listItem",
            content: [
              { type: "paragraph", content: [{ type: "text", text: "a" }] },
              {
                type: "orderedList",
                attrs: { start: 1 },
                content: [
                  {
                    type: "listItem",
                    content: [{ type: "paragraph", content: [{ type: "text", text: "b" }] }],
                  },
                ],
              },
            ],
          },
        ],
      },
      {
        type: "orderedList",
        attrs: { start: 3 },
        content: [
          { type: "listItem", content: [{ type: "paragraph", content: [{ type: "text", text: "c" }] }] },
        ],
      },
    ]);
  });

  it("starts every list item with a paragraph, as the editor requires", () => {
    expect(toDoc("- ```\n  x\n  ```\n-")).toEqual([
      {
        type: "bulletList",
        content: [
          {
            type: "listItem",
            content: [{ type: "paragraph" }, { type: "codeBlock", content: [{ type: "text", text: "x" }] }],
          },
          { type: "listItem", content: [{ type: "paragraph" }] },
        ],
      },
    ]);
  });

  it("makes blockquotes, never empty", () => {
    expect(toDoc("> a\n\n>")).toEqual([
      { type: "blockquote", content: [{ type: "paragraph", content: [{ type: "text", text: "a" }] }] },
      { type: "blockquote", content: [{ type: "paragraph" }] },
    ]);
  });

  it("makes code blocks with their language, fenced or indented", () => {
    expect(toDoc("```ts meta\nlet a;\n```\n\n    plain")).toEqual([
      { type: "codeBlock", attrs: { language: "ts" }, content: [{ type: "text", text: "let a;" }] },
      { type: "codeBlock", content: [{ type: "text", text: "plain" }] },
    ]);
    expect(toDoc("```\n```")).toEqual([{ type: "codeBlock" }]);
  });

  it("makes horizontal rules and the excerpt break", () => {
    expect(toDoc("---\n\n<!--more-->")).toEqual([{ type: "horizontalRule" }, { type: "readMore" }]);
  });

  it("makes tables with a header row, alignment on every cell of a column, and square rows", () => {
    const cell = (type: string, text: string | null, align?: string) => ({
      type,
      ...(align ? { attrs: { align } } : {}),
      content: [
        text === null ? { type: "paragraph" } : { type: "paragraph", content: [{ type: "text", text }] },
      ],
    });
    expect(toDoc("| a | b |\n|:-:| - |\n| 1 |")).toEqual([
      {
        type: "table",
        content: [
          { type: "tableRow", content: [cell("tableHeader", "a", "center"), cell("tableHeader", "b")] },
          { type: "tableRow", content: [cell("tableCell", "1", "center"), cell("tableCell", null)] },
        ],
      },
    ]);
  });

  it("gives an empty document one empty paragraph", () => {
    expect(toDoc("")).toEqual([{ type: "paragraph" }]);
  });
});

describe("mdastToDoc: inline", () => {
  it("maps emphasis, strong, strikethrough and inline code to marks", () => {
    expect(inline("*i* **b** ~~s~~ `c`")).toEqual([
      { type: "text", marks: [{ type: "italic" }], text: "i" },
      { type: "text", text: " " },
      { type: "text", marks: [{ type: "bold" }], text: "b" },
      { type: "text", text: " " },
      { type: "text", marks: [{ type: "strike" }], text: "s" },
      { type: "text", text: " " },
      { type: "text", marks: [{ type: "code" }], text: "c" },
    ]);
  });

  it("orders marks link, bold, italic, strike, code whatever the nesting", () => {
    const marks = [
      { type: "link", attrs: { href: "/x" } },
      { type: "bold" },
      { type: "italic" },
      { type: "strike" },
      { type: "code" },
    ];
    expect(inline("[***~~`x`~~***](/x)")).toEqual([{ type: "text", marks, text: "x" }]);
    expect(inline("~~*[**`x`**](/x)*~~")).toEqual([{ type: "text", marks, text: "x" }]);
  });

  it("maps links with their title", () => {
    expect(inline('[a](http://a.example "T") [b](/b)')).toEqual([
      { type: "text", marks: [{ type: "link", attrs: { href: "http://a.example", title: "T" } }], text: "a" },
      { type: "text", text: " " },
      { type: "text", marks: [{ type: "link", attrs: { href: "/b" } }], text: "b" },
    ]);
  });

  it("maps both kinds of hard break to hardBreak, keeping the marks around them", () => {
    expect(inline("a  \nb\\\nc")).toEqual([
      { type: "text", text: "a" },
      { type: "hardBreak" },
      { type: "text", text: "b" },
      { type: "hardBreak" },
      { type: "text", text: "c" },
    ]);
    expect(inline("**a\\\nb**")).toEqual([
      { type: "text", marks: [{ type: "bold" }], text: "a" },
      { type: "hardBreak", marks: [{ type: "bold" }] },
      { type: "text", marks: [{ type: "bold" }], text: "b" },
    ]);
  });

  it("maps images, inline, with alt and title, and a link around them as a mark", () => {
    expect(inline('![alt](/a.png "T") [![](/b.png)](/l)')).toEqual([
      { type: "image", attrs: { src: "/a.png", alt: "alt", title: "T" } },
      { type: "text", text: " " },
      { type: "image", attrs: { src: "/b.png" }, marks: [{ type: "link", attrs: { href: "/l" } }] },
    ]);
  });

  it("joins neighbouring text with the same marks", () => {
    expect(inline("a\\*b **c**")).toEqual([
      { type: "text", text: "a*b " },
      { type: "text", marks: [{ type: "bold" }], text: "c" },
    ]);
  });
});
