import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { inlineCost } from "./inline-cost.js";

/**
 * micromark's constructs for inline content. Without them the parser reads only the block
 * structure, in time linear in the text once the block limits hold, and every inline run is plain
 * text. Escapes, character references and line endings stay, as they cost little.
 */
const inlineConstructs = [
  "attention",
  "autolink",
  "codeText",
  "htmlText",
  "labelStartImage",
  "labelStartLink",
  "labelEnd",
  "strikethrough",
  "wwwAutolink",
  "protocolAutolink",
  "emailAutolink",
  "gfmFootnoteCall",
  "gfmPotentialFootnoteCall",
  "tasklistCheck",
];

/**
 * GFM's mdast extensions but the autolink literal's: its tree transform looks for URLs in every
 * text, which a parse of the block structure does not need, and on a paragraph of 90,000 bare URLs
 * its splice of the text into links overflowed the stack (a RangeError where the body should have
 * been refused as too complex). It is the one extension with a transform.
 */
const blockMdastExtensions = gfmFromMarkdown().filter((extension) => !extension.transforms?.length);

/** The nodes whose content micromark parses inline, each on its own. */
const inlineParents = new Set(["paragraph", "heading", "tableCell"]);

/**
 * {@link inlineCost} summed over the paragraphs, headings and table cells of `markdown`, found by
 * parsing its block structure alone. Exact where `measureMarkdown` guesses (a table or a list
 * without blank lines is many inline runs, fenced code none), at the price of a parse.
 */
export function measureInlineRegions(markdown: string): number {
  const tree = fromMarkdown(markdown, {
    extensions: [gfm(), { disable: { null: inlineConstructs } }],
    mdastExtensions: blockMdastExtensions,
  });
  let work = 0;
  const pending: Nodes[] = [tree];
  for (let node = pending.pop(); node; node = pending.pop()) {
    const { start, end } = node.position ?? {};
    if (inlineParents.has(node.type) && start?.offset !== undefined && end?.offset !== undefined) {
      work += inlineCost(markdown, start.offset, end.offset).work;
    } else if ("children" in node) {
      for (const child of node.children) pending.push(child);
    }
  }
  return work;
}
