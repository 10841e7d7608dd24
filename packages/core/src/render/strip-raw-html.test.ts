import type { Root } from "mdast";
import { describe, expect, it } from "vitest";
import { parseMarkdown } from "./parse-markdown.js";
import { stripRawHtml } from "./strip-raw-html.js";

/** The tree's node types, depth first, to see what survived. */
function types(tree: Root): string[] {
  const found: string[] = [];
  const visit = (node: { type: string; children?: unknown[] }) => {
    found.push(node.type);
    for (const child of node.children ?? []) visit(child as { type: string; children?: unknown[] });
  };
  visit(tree);
  return found;
}

function texts(tree: Root): string {
  return JSON.stringify(tree, (key, value) => (key === "position" ? undefined : value));
}

describe("stripRawHtml", () => {
  it("drops HTML blocks with everything in them", () => {
    const tree = parseMarkdown("<div>\n<b>inside</b>\n</div>\n\n<script>alert(1)</script>\n\nafter");
    expect(types(tree)).toEqual(["root", "paragraph", "text"]);
    expect(texts(tree)).not.toContain("inside");
    expect(texts(tree)).not.toContain("alert");
  });

  it("drops inline tags together with the text between opening and closing tag", () => {
    const tree = parseMarkdown("a <span>hidden</span> b <script>alert(1)</script> c");
    expect(types(tree)).toEqual(["root", "paragraph", "text"]);
    expect(tree.children[0]).toMatchObject({ children: [{ type: "text", value: "a b c" }] });
  });

  it("handles nested tags of the same name", () => {
    const tree = parseMarkdown("a <b>x <b>y</b> z</b> c");
    expect(tree.children[0]).toMatchObject({ children: [{ type: "text", value: "a c" }] });
  });

  it("drops void and self-closing tags alone, keeping what follows", () => {
    const tree = parseMarkdown('a <img src=x onerror="alert(1)"> b<br>c <x-y/> d');
    expect(tree.children[0]).toMatchObject({ children: [{ type: "text", value: "a bc d" }] });
  });

  it("drops an unclosed tag alone and a stray closing tag", () => {
    const tree = parseMarkdown("a <em>b</i> c");
    expect(tree.children[0]).toMatchObject({ children: [{ type: "text", value: "a b c" }] });
  });

  it("drops the content between an opening HTML block and its closing block", () => {
    const tree = parseMarkdown("<details>\n\nSecret *stuff*\n\n</details>\n\nvisible");
    expect(types(tree)).toEqual(["root", "paragraph", "text"]);
    expect(texts(tree)).toContain("visible");
    expect(texts(tree)).not.toContain("Secret");
  });

  it("turns a `<!--more-->` block into a readMore node, tolerating whitespace and case", () => {
    for (const comment of ["<!--more-->", "<!-- more -->", "  <!--MORE-->", "<!--\tmore  -->"]) {
      expect(types(parseMarkdown(`a\n\n${comment}\n\nb`))).toEqual([
        "root",
        "paragraph",
        "text",
        "readMore",
        "paragraph",
        "text",
      ]);
    }
  });

  it("recognises the excerpt break inside list items and blockquotes", () => {
    expect(types(parseMarkdown("> a\n>\n> <!--more-->"))).toContain("readMore");
    expect(types(parseMarkdown("- a\n\n  <!--more-->"))).toContain("readMore");
  });

  it("does not treat other comments, or `<!--more-->` inside a line, as the excerpt break", () => {
    expect(types(parseMarkdown("<!-- note -->\n\n<!--more--> and text\n\na <!--more--> b"))).toEqual([
      "root",
      "paragraph",
      "text",
    ]);
  });

  it("works on a tree given directly", () => {
    const tree: Root = {
      type: "root",
      children: [
        { type: "html", value: "<!--more-->" },
        {
          type: "paragraph",
          children: [
            { type: "html", value: "<!--more-->" },
            { type: "text", value: "x" },
          ],
        },
      ],
    };
    stripRawHtml(tree);
    expect(tree).toEqual({
      type: "root",
      children: [{ type: "readMore" }, { type: "paragraph", children: [{ type: "text", value: "x" }] }],
    });
  });
});
