import type { Delete, Emphasis, Link, PhrasingContent, Strong } from "mdast";
import type { DocNode } from "./editor-doc.js";
import { type KnownMark, readMarks, sameMark } from "./marks.js";
import { type InlineContext, type InlineItem, normaliseInline } from "./normalise-inline.js";
import { isSafeUrl } from "./safe-url.js";

/** Block types whose inline content is flattened (with a line break between) when misplaced inline. */
const blockTypes = new Set([
  "paragraph",
  "heading",
  "blockquote",
  "codeBlock",
  "listItem",
  "tableCell",
  "tableHeader",
]);

/**
 * Converts the inline content of a textblock into mdast phrasing, normalised so that Markdown keeps it
 * as is: marks nest in one fixed order, whitespace at line edges and blank lines inside text go,
 * line breaks at either end go, and unsafe link and image URLs are dropped.
 */
export function docInlineToMdast(nodes: DocNode[], context: InlineContext): PhrasingContent[] {
  const items: InlineItem[] = [];
  collect(nodes, items);
  return toPhrasing(normaliseInline(items, context));
}

function collect(nodes: DocNode[], items: InlineItem[]): void {
  for (const node of nodes) {
    const marks = readMarks(node.marks);
    if (node.type === "hardBreak") items.push({ kind: "break", marks: withoutCode(marks) });
    else if (node.type === "image") pushImage(node, withoutCode(marks), items);
    else if (node.text !== undefined) pushText(node.text, marks, items);
    else if (node.content) {
      if (blockTypes.has(node.type) && items.length > 0) items.push({ kind: "break", marks: [] });
      collect(node.content, items);
    }
  }
}

function pushText(text: string, marks: KnownMark[], items: InlineItem[]): void {
  const isCode = marks.some((mark) => mark.type === "code");
  // Markdown turns a newline in inline code into a space anyway.
  const value = text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
  items.push({
    kind: "text",
    value: isCode && value.includes("\n") ? value.replace(/\n/g, " ") : value,
    marks,
  });
}

function pushImage(node: DocNode, marks: KnownMark[], items: InlineItem[]): void {
  const { src, alt, title } = node.attrs ?? {};
  if (typeof src !== "string" || !isSafeUrl(src, "src")) return;
  const altText = typeof alt === "string" ? alt : "";
  items.push({
    kind: "image",
    url: src,
    alt: altText,
    title: typeof title === "string" && title ? title : null,
    marks,
  });
}

function withoutCode(marks: KnownMark[]): KnownMark[] {
  return marks.filter((mark) => mark.type !== "code");
}

/** Nests marks (outermost first) into mdast, reusing an open mark as long as the next item has it too. */
function toPhrasing(items: InlineItem[]): PhrasingContent[] {
  const root: PhrasingContent[] = [];
  const open: Array<{ mark: KnownMark; children: PhrasingContent[] }> = [];
  for (const item of items) {
    const wrappers = withoutCode(item.marks);
    let shared = 0;
    while (
      shared < open.length &&
      shared < wrappers.length &&
      sameMark(open[shared]!.mark, wrappers[shared]!)
    ) {
      shared++;
    }
    open.length = shared;
    for (const mark of wrappers.slice(shared)) {
      const node = wrapper(mark);
      (open.at(-1)?.children ?? root).push(node);
      open.push({ mark, children: node.children });
    }
    (open.at(-1)?.children ?? root).push(leaf(item));
  }
  return root;
}

function wrapper(mark: KnownMark): Emphasis | Strong | Delete | Link {
  switch (mark.type) {
    case "link":
      return { type: "link", url: mark.href, title: mark.title, children: [] };
    case "bold":
      return { type: "strong", children: [] };
    case "italic":
      return { type: "emphasis", children: [] };
    default:
      return { type: "delete", children: [] };
  }
}

function leaf(item: InlineItem): PhrasingContent {
  switch (item.kind) {
    case "break":
      return { type: "break" };
    case "image":
      return { type: "image", url: item.url, alt: item.alt, title: item.title };
    default:
      return item.marks.some((mark) => mark.type === "code")
        ? { type: "inlineCode", value: item.value }
        : { type: "text", value: item.value };
  }
}
