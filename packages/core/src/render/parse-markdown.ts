import type { Root, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { invalidField } from "../errors.js";
import { maxNesting } from "./editor-doc.js";
import { resolveReferences } from "./resolve-references.js";
import { stripRawHtml } from "./strip-raw-html.js";

/**
 * Parses Markdown (CommonMark with GFM tables, strikethrough and autolinks) into mdast without raw
 * HTML or references, and with `<!--more-->` as a `readMore` node. @see spec § Body formats
 */
export function parseMarkdown(markdown: string): Root {
  if (stacksTooManyContainers(markdown)) throw invalidField("bodyMarkdown", "is nested too deeply");
  const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  if (nesting(tree) > maxNesting) throw invalidField("bodyMarkdown", "is nested too deeply");
  resolveReferences(tree);
  stripRawHtml(tree);
  return tree;
}

const stackedContainers = /^(?:[ \t]{0,3}(?:[-*+>]|\d{1,9}[.)])[ \t]*){100}/m;

/**
 * True when a line opens 100 or more nested containers (`- - - …`, `> > > …`). The parser's cost
 * grows with the square of such nesting, so it is refused before parsing.
 */
function stacksTooManyContainers(markdown: string): boolean {
  return stackedContainers.test(markdown);
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
