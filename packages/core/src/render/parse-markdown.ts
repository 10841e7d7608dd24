import type { Root, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { invalidField } from "../errors.js";
import { maxNesting } from "./editor-doc.js";
import { linkBareUrls } from "./link-bare-urls.js";
import { fastParse } from "./markdown-it-to-mdast.js";
import { checkMarkdownLimits } from "./markdown-limits.js";
import { resolveReferences } from "./resolve-references.js";
import { stripRawHtml } from "./strip-raw-html.js";

/** The GFM extensions, made once: they hold no state, and making them per body cost a tenth of a parse. */
const parserOptions = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/** Which parser read a body: markdown-it (fast) or micromark (for what the fast route does not read alike). */
export type ParseRoute = "fast" | "micromark";

/**
 * Parses Markdown (CommonMark with GFM tables, strikethrough and autolinks) into mdast without raw
 * HTML or references, and with `<!--more-->` as a `readMore` node. Markdown that would take the
 * parser too long is refused first, as a VALIDATION_ERROR naming `field`. @see spec § Body formats
 *
 * markdown-it reads the body when it can (see `markdown-it-to-mdast.ts`), micromark otherwise;
 * both give the same tree as far as the stored forms can tell. @see docs/rendering.md
 */
export function parseMarkdown(markdown: string, field = "bodyMarkdown"): Root {
  return parseMarkdownRouted(markdown, field).tree;
}

/** {@link parseMarkdown}, saying which parser read the body; `route` forces one (for tests and benchmarks). */
export function parseMarkdownRouted(
  markdown: string,
  field = "bodyMarkdown",
  route?: ParseRoute,
): { tree: Root; route: ParseRoute } {
  return refusingOverflow(field, () => parseWithin(markdown, field, route));
}

/**
 * Runs `work` on a client's text, a stack overflow in it (a RangeError) refused as a body too
 * complex to render (400 naming `field`), not answered as a failure of the server. The Markdown
 * limits keep every known shape of Markdown from getting there; an editor document has no such
 * limits, and one text of 70,000 bare URLs overflowed GFM's link transform.
 */
export function refusingOverflow<T>(field: string, work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof RangeError) throw invalidField(field, "is too complex to render");
    throw err;
  }
}

function parseWithin(
  markdown: string,
  field: string,
  route: ParseRoute | undefined,
): { tree: Root; route: ParseRoute } {
  checkMarkdownLimits(markdown, field);
  const fast = route === "micromark" ? undefined : fastParse(markdown);
  const tree = fast ?? fromMarkdown(markdown, parserOptions);
  if (nesting(tree) > maxNesting) throw invalidField(field, "is nested too deeply");
  // GFM's transform, which fromMarkdown runs last: it links what the literal syntax left as text.
  if (fast) linkBareUrls(fast);
  resolveReferences(tree);
  stripRawHtml(tree);
  return { tree, route: fast ? "fast" : "micromark" };
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
