import type { Root } from "mdast";
import { gfmToMarkdown } from "mdast-util-gfm";
import { type Options, toMarkdown } from "mdast-util-to-markdown";
import { writeMarkdown } from "./markdown-writer.js";
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

/**
 * Renders mdast as Markdown: `-` bullets, `*` emphasis, ``` fences, hard breaks as a backslash.
 * The same bytes as {@link libraryMdastToMarkdown}, written by `markdown-writer.ts` when it can
 * (most bodies: 0.39 → 0.03 ms on a bench:write body) and by the library otherwise.
 */
export function mdastToMarkdown(tree: Root): string {
  const markdown = writeMarkdown(tree) ?? toMarkdown(tree, serializerOptions);
  return markdown.replace(/\n+$/, "");
}

/** Renders mdast as Markdown with mdast-util-to-markdown alone: the reference the writer must match. */
export function libraryMdastToMarkdown(tree: Root): string {
  return toMarkdown(tree, serializerOptions).replace(/\n+$/, "");
}
