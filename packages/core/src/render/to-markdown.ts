import type { Root } from "mdast";
import { gfmToMarkdown } from "mdast-util-gfm";
import { type Options, toMarkdown } from "mdast-util-to-markdown";
import { readMoreComment } from "./read-more.js";

/** Made once: the options and GFM extension hold no state. */
const serializerOptions: Options = {
  extensions: [gfmToMarkdown()],
  bullet: "-",
  emphasis: "*",
  strong: "*",
  fence: "`",
  fences: true,
  rule: "-",
  listItemIndent: "one",
  handlers: { readMore: () => readMoreComment },
};

/** Renders mdast as Markdown: `-` bullets, `*` emphasis, ``` fences, hard breaks as a backslash. */
export function mdastToMarkdown(tree: Root): string {
  const markdown = toMarkdown(tree, serializerOptions);
  return markdown.replace(/\n+$/, "");
}
