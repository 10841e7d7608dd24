import type { Nodes as HastNodes } from "hast";
import { defaultSchema, sanitize } from "hast-util-sanitize";
import { toHtml } from "hast-util-to-html";
import type { Root } from "mdast";
import { toHast } from "mdast-util-to-hast";
import { writeHtml } from "./html-writer.js";

/** GitHub's sanitising rules; comments pass only so that the excerpt break can, and are then filtered. */
const schema = { ...defaultSchema, allowComments: true };

/**
 * Renders mdast as sanitised HTML: no raw HTML, no unsafe URLs, `<!--more-->` the only comment.
 * The same bytes as {@link libraryMdastToHtml}, written by `html-writer.ts` when it can (most
 * bodies) and by the libraries otherwise.
 */
export function mdastToHtml(tree: Root): string {
  return writeHtml(tree) ?? libraryMdastToHtml(tree);
}

/** Renders mdast as HTML with the libraries alone: the reference the writer must match. */
export function libraryMdastToHtml(tree: Root): string {
  const hast = toHast(tree, { handlers: { readMore: () => ({ type: "comment", value: "more" }) } });
  const clean = sanitize(hast, schema);
  dropOtherComments(clean);
  return toHtml(clean);
}

function dropOtherComments(node: HastNodes): void {
  if (!("children" in node)) return;
  node.children = node.children.filter((child) => child.type !== "comment" || child.value === "more");
  for (const child of node.children) dropOtherComments(child);
}
