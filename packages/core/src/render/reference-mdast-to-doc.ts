import type {
  AlignType,
  Code,
  Image,
  List,
  PhrasingContent,
  Root,
  RootContent,
  Table,
  TableCell,
} from "mdast";
import type { DocNode } from "./editor-doc.js";
import { type KnownMark, sortMarks, toDocMark } from "./marks.js";

/**
 * The editor document converter as it was before issue 13 (`mdast-to-doc.ts` now does the same in
 * fewer copies): the reference `render-differential.test.ts` holds it to. Not used outside tests and
 * bench scripts.
 *
 * Converts mdast into an editor document with TipTap StarterKit names, plus `image` as an inline node
 * (TipTap's Image with `inline: true`, so images can sit in text and links), `readMore` for the
 * excerpt break, and `attrs.align` on table cells for their column's alignment.
 */
export function referenceMdastToDoc(tree: Root): DocNode {
  return { type: "doc", content: orEmptyParagraph(blocks(tree.children)) };
}

function blocks(nodes: RootContent[]): DocNode[] {
  return nodes.flatMap(block);
}

function block(node: RootContent): DocNode[] {
  switch (node.type) {
    case "paragraph":
      return [textblock({ type: "paragraph" }, node.children)];
    case "heading":
      return [textblock({ type: "heading", attrs: { level: node.depth } }, node.children)];
    case "blockquote":
      return [{ type: "blockquote", content: orEmptyParagraph(blocks(node.children)) }];
    case "list":
      return [list(node)];
    case "code":
      return [codeBlock(node)];
    case "thematicBreak":
      return [{ type: "horizontalRule" }];
    case "table":
      return table(node);
    case "readMore":
      return [{ type: "readMore" }];
    case "html":
      return [];
    default:
      return "children" in node ? blocks(node.children) : [];
  }
}

function textblock(node: DocNode, children: PhrasingContent[]): DocNode {
  const content = mergeText(inline(children, []));
  return content.length > 0 ? { ...node, content } : node;
}

function list(node: List): DocNode {
  const items = node.children.map((item) => {
    const content = blocks(item.children);
    // The editor's list item must start with a paragraph.
    if (content[0]?.type !== "paragraph") content.unshift({ type: "paragraph" });
    return { type: "listItem", content };
  });
  if (!node.ordered) return { type: "bulletList", content: items };
  return { type: "orderedList", attrs: { start: node.start ?? 1 }, content: items };
}

function codeBlock(node: Code): DocNode {
  const code: DocNode = { type: "codeBlock" };
  if (node.lang) code.attrs = { language: node.lang };
  if (node.value) code.content = [{ type: "text", text: node.value }];
  return code;
}

function table(node: Table): DocNode[] {
  const columns = Math.max(0, ...node.children.map((row) => row.children.length));
  if (columns === 0) return [];
  const rows = node.children.map((row, rowIndex) => ({
    type: "tableRow",
    content: Array.from({ length: columns }, (_, column) =>
      tableCell(row.children[column], rowIndex === 0 ? "tableHeader" : "tableCell", node.align?.[column]),
    ),
  }));
  return [{ type: "table", content: rows }];
}

function tableCell(cell: TableCell | undefined, type: string, align: AlignType | undefined): DocNode {
  const node: DocNode = { type };
  if (align) node.attrs = { align };
  node.content = [textblock({ type: "paragraph" }, cell?.children ?? [])];
  return node;
}

function inline(nodes: PhrasingContent[], marks: KnownMark[]): DocNode[] {
  return nodes.flatMap((node) => inlineNode(node, marks));
}

function inlineNode(node: PhrasingContent, marks: KnownMark[]): DocNode[] {
  switch (node.type) {
    case "text":
      return node.value === "" ? [] : [marked({ type: "text", text: node.value }, marks)];
    case "inlineCode":
      return node.value === ""
        ? []
        : [marked({ type: "text", text: node.value }, [...marks, { type: "code" }])];
    case "emphasis":
      return inline(node.children, withMark(marks, { type: "italic" }));
    case "strong":
      return inline(node.children, withMark(marks, { type: "bold" }));
    case "delete":
      return inline(node.children, withMark(marks, { type: "strike" }));
    case "link":
      return inline(
        node.children,
        withMark(marks, { type: "link", href: node.url, title: node.title || null }),
      );
    case "break":
      return [marked({ type: "hardBreak" }, marks)];
    case "image":
      return [marked({ type: "image", attrs: imageAttrs(node) }, marks)];
    case "html":
      return [];
    default:
      return "children" in node ? inline(node.children, marks) : [];
  }
}

function withMark(marks: KnownMark[], mark: KnownMark): KnownMark[] {
  return [...marks.filter((other) => other.type !== mark.type), mark];
}

/** Adds marks to a node, keeping ProseMirror's key order (`type`, `attrs`, `marks`, `text`). */
function marked(node: DocNode, marks: KnownMark[]): DocNode {
  if (marks.length === 0) return node;
  const { text, ...rest } = node;
  const withMarks: DocNode = { ...rest, marks: sortMarks(marks).map(toDocMark) };
  if (text !== undefined) withMarks.text = text;
  return withMarks;
}

function imageAttrs(node: Image): Record<string, unknown> {
  const attrs: Record<string, unknown> = { src: node.url };
  if (node.alt) attrs.alt = node.alt;
  if (node.title) attrs.title = node.title;
  return attrs;
}

/** Joins neighbouring text nodes that carry the same marks, as ProseMirror does. */
function mergeText(nodes: DocNode[]): DocNode[] {
  const merged: DocNode[] = [];
  for (const node of nodes) {
    const last = merged.at(-1);
    if (
      last?.type === "text" &&
      node.type === "text" &&
      JSON.stringify(last.marks) === JSON.stringify(node.marks)
    ) {
      merged[merged.length - 1] = { ...last, text: `${last.text}${node.text}` };
    } else {
      merged.push(node);
    }
  }
  return merged;
}

function orEmptyParagraph(content: DocNode[]): DocNode[] {
  return content.length > 0 ? content : [{ type: "paragraph" }];
}
