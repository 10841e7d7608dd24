import type { BlockContent, Code, List, ListItem, Root, Table, TableCell } from "mdast";
import { docInlineToMdast } from "./doc-inline-to-mdast.js";
import type { DocNode } from "./editor-doc.js";
import { linkBareUrls } from "./link-bare-urls.js";

/** Node types the converter knows; others are replaced by their content, so their text is kept. */
const knownTypes = new Set([
  "paragraph",
  "heading",
  "text",
  "bulletList",
  "orderedList",
  "listItem",
  "blockquote",
  "codeBlock",
  "horizontalRule",
  "hardBreak",
  "image",
  "table",
  "tableRow",
  "tableHeader",
  "tableCell",
  "readMore",
]);

/** Inline nodes met among blocks are gathered into a paragraph. */
const inlineTypes = new Set(["text", "hardBreak", "image"]);

/** Converts an editor document into mdast, dropping empty blocks, unknown nodes and unsafe URLs. */
export function docToMdast(doc: DocNode): Root {
  const tree = docToMdastUnlinked(doc);
  linkBareUrls(tree);
  return tree;
}

/** {@link docToMdast} before bare URLs are linked. */
export function docToMdastUnlinked(doc: DocNode): Root {
  return { type: "root", children: flow(doc.content ?? []) };
}

function flow(nodes: DocNode[]): BlockContent[] {
  const blocks: BlockContent[] = [];
  let inlineRun: DocNode[] = [];
  for (const node of expandUnknown(nodes)) {
    if (inlineTypes.has(node.type)) {
      inlineRun.push(node);
      continue;
    }
    blocks.push(...paragraph(inlineRun), ...block(node));
    inlineRun = [];
  }
  blocks.push(...paragraph(inlineRun));
  return blocks;
}

function expandUnknown(nodes: DocNode[]): DocNode[] {
  // Nodes of known types only (every document made from Markdown): nothing to copy.
  if (nodes.every((node) => knownTypes.has(node.type))) return nodes;
  return nodes.flatMap((node): DocNode[] => {
    if (knownTypes.has(node.type)) return [node];
    if (node.text !== undefined) return [{ type: "text", text: node.text, marks: node.marks ?? [] }];
    return expandUnknown(node.content ?? []);
  });
}

function block(node: DocNode): BlockContent[] {
  switch (node.type) {
    case "paragraph":
      return paragraph(node.content ?? []);
    case "heading": {
      const children = docInlineToMdast(node.content ?? [], "heading");
      return children.length > 0
        ? [{ type: "heading", depth: headingDepth(node.attrs?.level), children }]
        : [];
    }
    case "blockquote": {
      const children = flow(node.content ?? []);
      return children.length > 0 ? [{ type: "blockquote", children }] : [];
    }
    case "bulletList":
    case "orderedList":
      return list(node);
    case "codeBlock":
      return [codeBlock(node)];
    case "horizontalRule":
      return [{ type: "thematicBreak" }];
    case "readMore":
      return [{ type: "readMore" }];
    case "table":
      return table(node);
    default:
      return flow(node.content ?? []);
  }
}

function paragraph(content: DocNode[]): BlockContent[] {
  const children = docInlineToMdast(content, "paragraph");
  return children.length > 0 ? [{ type: "paragraph", children }] : [];
}

function list(node: DocNode): List[] {
  const items = expandUnknown(node.content ?? []).map((child) =>
    listItem(child.type === "listItem" ? (child.content ?? []) : [child]),
  );
  if (items.length === 0) return [];
  const spread = items.some((item) => item.spread);
  if (node.type === "bulletList") return [{ type: "list", ordered: false, spread, children: items }];
  return [{ type: "list", ordered: true, start: listStart(node.attrs?.start), spread, children: items }];
}

function listItem(content: DocNode[]): ListItem {
  const children = flow(content);
  // A nested list may follow the first block in a tight item; anything else needs a blank line.
  return { type: "listItem", spread: children.slice(1).some((child) => child.type !== "list"), children };
}

function codeBlock(node: DocNode): Code {
  const language = node.attrs?.language;
  // An info string is one word and may not hold a backtick after a backtick fence.
  const lang = typeof language === "string" ? language.trim().split(/\s+/)[0]?.replace(/`/g, "") : "";
  return { type: "code", lang: lang || null, meta: null, value: plainText(node.content ?? []) };
}

function plainText(nodes: DocNode[]): string {
  return nodes
    .map((node) => (node.type === "hardBreak" ? "\n" : (node.text ?? plainText(node.content ?? []))))
    .join("")
    .replace(/\r\n?/g, "\n");
}

function table(node: DocNode): Table[] {
  const rows = expandUnknown(node.content ?? []).map((row) =>
    row.type === "tableRow" ? expandUnknown(row.content ?? []) : [row],
  );
  const columns = Math.max(0, ...rows.map((cells) => cells.length));
  if (columns === 0) return [];
  const columnIndexes = Array.from({ length: columns }, (_, column) => column);
  return [
    {
      type: "table",
      align: columnIndexes.map((column) => cellAlign(rows[0]?.[column])),
      children: rows.map((cells) => ({
        type: "tableRow",
        children: columnIndexes.map((column) => tableCell(cells[column])),
      })),
    },
  ];
}

function tableCell(cell: DocNode | undefined): TableCell {
  const isCell = cell?.type === "tableCell" || cell?.type === "tableHeader";
  const content = isCell ? (cell.content ?? []) : cell ? [cell] : [];
  return { type: "tableCell", children: docInlineToMdast(content, "cell") };
}

function cellAlign(cell: DocNode | undefined): "left" | "center" | "right" | null {
  const align = cell?.attrs?.align;
  return align === "left" || align === "center" || align === "right" ? align : null;
}

function headingDepth(level: unknown): 1 | 2 | 3 | 4 | 5 | 6 {
  const depth = typeof level === "number" && Number.isInteger(level) ? Math.min(6, Math.max(1, level)) : 1;
  return depth as 1 | 2 | 3 | 4 | 5 | 6;
}

function listStart(start: unknown): number {
  // CommonMark list numbers have at most nine digits.
  return typeof start === "number" && Number.isInteger(start) && start >= 0 && start <= 999_999_999
    ? start
    : 1;
}
