import type { Parent, Root, RootContent } from "mdast";
import { isReadMoreComment } from "./read-more.js";

/** Elements that never wrap content, so nothing after their tag belongs to them. */
const voidElements = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

/** Parents whose children are blocks, where the excerpt break may stand. */
const flowParents = new Set(["root", "blockquote", "listItem", "footnoteDefinition"]);

/**
 * Removes all raw HTML from a tree, in place, together with whatever sits between an opening tag and
 * its closing tag; a block that is exactly `<!--more-->` becomes a `readMore` node instead.
 */
export function stripRawHtml(tree: Root): void {
  const pending: Parent[] = [tree];
  for (let parent = pending.pop(); parent; parent = pending.pop()) {
    parent.children = withoutHtml(parent.children, flowParents.has(parent.type));
    for (const child of parent.children) if ("children" in child) pending.push(child);
  }
}

function withoutHtml(children: RootContent[], flow: boolean): RootContent[] {
  const kept: RootContent[] = [];
  let dropped = false;
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!;
    if (child.type === "html") {
      if (flow && isReadMoreComment(child.value)) kept.push({ type: "readMore" });
      else index = closingTagIndex(children, index);
      dropped = !flow;
      continue;
    }
    const before = kept.at(-1);
    if (dropped && child.type === "text" && before?.type === "text") {
      // `a <b>x</b> c` leaves `a ` and ` c`: join them with one space where the HTML was, not two.
      const after = /[ \t]$/.test(before.value) ? child.value.replace(/^[ \t]+/, "") : child.value;
      kept[kept.length - 1] = { type: "text", value: before.value + after };
    } else {
      kept.push(child);
    }
    dropped = false;
  }
  return kept;
}

/** Where the element opened by `children[start]` closes among its siblings, or `start` if it does not. */
function closingTagIndex(children: RootContent[], start: number): number {
  const name = openingTagName(children[start]);
  if (name === undefined) return start;
  let depth = 1;
  for (let index = start + 1; index < children.length; index++) {
    const child = children[index]!;
    if (child.type !== "html") continue;
    if (openingTagName(child) === name) depth++;
    else if (new RegExp(`^</${name}\\s*>$`, "i").test(child.value.trim()) && --depth === 0) return index;
  }
  return start;
}

function openingTagName(node: RootContent | undefined): string | undefined {
  if (node?.type !== "html") return undefined;
  const match = /^<([a-z][a-z0-9-]*)(?:\s[^<>]*)?>$/i.exec(node.value.trim());
  const name = match?.[1]?.toLowerCase();
  if (name === undefined || voidElements.has(name) || node.value.trim().endsWith("/>")) return undefined;
  return name;
}
