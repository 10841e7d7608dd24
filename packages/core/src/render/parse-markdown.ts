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

/** Most containers one line may open (`- - - …`, `> > > …`, `1. 1. …`). */
const maxStackedContainers = 100;

/**
 * True when a line opens 100 or more nested containers. The parser's cost grows with the square of
 * such nesting, so it is refused before parsing. One pass over the text, each character looked at
 * once: the regular expression this replaces backtracked exponentially on `> > > … x`.
 */
function stacksTooManyContainers(markdown: string): boolean {
  let count = 0;
  let i = 0;
  while (i < markdown.length) {
    let spaces = 0;
    while (spaces < 3 && (markdown[i] === " " || markdown[i] === "\t")) {
      i++;
      spaces++;
    }
    const marker = containerMarkerLength(markdown, i);
    if (marker > 0) {
      count++;
      if (count >= maxStackedContainers) return true;
      i += marker;
      while (markdown[i] === " " || markdown[i] === "\t") i++;
      continue;
    }
    // Not a marker: this line is done; the next one starts counting afresh.
    count = 0;
    const end = markdown.indexOf("\n", i);
    if (end === -1) return false;
    i = end + 1;
  }
  return false;
}

/** The length of a container marker at `at` (`-`, `*`, `+`, `>`, or up to 9 digits and `.`/`)`), else 0. */
function containerMarkerLength(text: string, at: number): number {
  const char = text[at];
  if (char === "-" || char === "*" || char === "+" || char === ">") return 1;
  let digits = 0;
  while (digits < 9 && text[at + digits] !== undefined && /[0-9]/.test(text[at + digits] as string)) digits++;
  if (digits === 0) return 0;
  const after = text[at + digits];
  return after === "." || after === ")" ? digits + 1 : 0;
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
