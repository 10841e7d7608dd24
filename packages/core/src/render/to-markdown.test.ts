import type { Root } from "mdast";
import { describe, expect, it } from "vitest";
import { parseMarkdown } from "./parse-markdown.js";
import { mdastToMarkdown } from "./to-markdown.js";

const markdown = (source: string) => mdastToMarkdown(parseMarkdown(source));

describe("mdastToMarkdown", () => {
  it("writes `-` bullets, `*` emphasis, `**` strong, ``` fences and `---` rules", () => {
    expect(markdown("* a\n* b\n\n_em_ __strong__\n\n    code\n\n***")).toBe(
      "- a\n- b\n\n*em* **strong**\n\n```\ncode\n```\n\n---",
    );
  });

  it("writes hard breaks as a backslash and keeps soft breaks", () => {
    expect(markdown("a  \nb\\\nc\nd")).toBe("a\\\nb\\\nc\nd");
  });

  it("writes the excerpt break as `<!--more-->`", () => {
    const tree: Root = { type: "root", children: [{ type: "readMore" }] };
    expect(mdastToMarkdown(tree)).toBe("<!--more-->");
  });

  it("escapes text that would otherwise become Markdown", () => {
    expect(markdown("\\# a\n\n1\\. b\n\n\\* c \\_d\\_\n\n\\<!--more-->")).toBe(
      "\\# a\n\n1\\. b\n\n\\* c \\_d\\_\n\n\\<!--more-->",
    );
  });

  it("writes GFM tables with alignment and escaped pipes", () => {
    expect(markdown("|a|b|\n|:-:|-|\n|x\\|y|z|")).toBe("|   a  | b |\n| :--: | - |\n| x\\|y | z |");
  });

  it("ends without a trailing newline", () => {
    expect(markdown("a\n\n\n")).toBe("a");
    expect(markdown("")).toBe("");
  });
});
