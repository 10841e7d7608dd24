import type { Root, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { invalidField } from "../errors.js";
import { maxNesting } from "./editor-doc.js";
import { checkMarkdownLimits } from "./markdown-limits.js";
import { resolveReferences } from "./resolve-references.js";
import { stripRawHtml } from "./strip-raw-html.js";

/** The GFM extensions, made once: they hold no state, and making them per body cost a tenth of a parse. */
const parserOptions = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/**
 * Parses Markdown (CommonMark with GFM tables, strikethrough and autolinks) into mdast without raw
 * HTML or references, and with `<!--more-->` as a `readMore` node. Markdown that would take the
 * parser too long is refused first, as a VALIDATION_ERROR naming `field`. @see spec § Body formats
 */
export function parseMarkdown(markdown: string, field = "bodyMarkdown"): Root {
  checkMarkdownLimits(markdown, field);
  const tree = fromMarkdown(markdown, parserOptions);
  if (nesting(tree) > maxNesting) throw invalidField(field, "is nested too deeply");
  resolveReferences(tree);
  stripRawHtml(tree);
  return tree;
}

/** How deep the tree goes, measured without recursion so a hostile input cannot exhaust the stack. */
function nesting(tree: Root): number {
  let deepest = 0;
  const pending: Array<[RootContent, number]> = tree.children.map((child) => [child, 1]);
  for (let entry = pending.pop(); entry; entry = pending.pop()) {
    const [node, depth] = entry;
    deepest = Math.max(deepest, depth);
    if ("children" in node) for (const child of node.children) pending.push([child, depth + 1]);
  }
  return deepest;
}
