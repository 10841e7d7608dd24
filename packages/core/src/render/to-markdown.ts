import type { Root } from "mdast";
import { gfmToMarkdown } from "mdast-util-gfm";
import { toMarkdown } from "mdast-util-to-markdown";
import { readMoreComment } from "./read-more.js";

/** Renders mdast as Markdown: `-` bullets, `*` emphasis, ``` fences, hard breaks as a backslash. */
export function mdastToMarkdown(tree: Root): string {
  const markdown = toMarkdown(tree, {
    extensions: [gfmToMarkdown()],
    bullet: "-",
    emphasis: "*",
    strong: "*",
    fence: "`",
    fences: true,
    rule: "-",
    listItemIndent: "one",
    handlers: { readMore: () => readMoreComment },
  });
  return markdown.replace(/\n+$/, "");
}
