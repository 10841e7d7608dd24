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
import type { DocMark, DocNode } from "./editor-doc.js";
import { type KnownMark, sortMarks, toDocMark } from "./marks.js";

/**
 * Converts mdast into an editor document with TipTap StarterKit names, plus `image` as an inline node
 * (TipTap's Image with `inline: true`, so images can sit in text and links), `readMore` for the
 * excerpt break, and `attrs.align` on table cells for their column's alignment.
 */
export function mdastToDoc(tree: Root): DocNode {
  return { type: "doc", content: orEmptyParagraph(blocks(tree.children)) };
}

function blocks(nodes: RootContent[]): DocNode[] {
  const result: DocNode[] = [];
  for (const node of nodes) result.push(...block(node));
  return result;
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

/** Fills `node` (made for it by the caller) with the converted phrasing, if any. */
function textblock(node: DocNode, children: PhrasingContent[]): DocNode {
  const content: DocNode[] = [];
  inline(children, noMarks, content);
  // Set on the node, not `{ ...node, content }`: a key added after a spread is slow in V8
  // (docs/architecture.md § Hot paths in JavaScript). The key order, and so the JSON, is the same.
  if (content.length > 0) node.content = content;
  return node;
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

/**
 * The marks in effect where inline content sits: the known marks, and the same sorted and in the
 * editor's shape, made once per mark change rather than once per text node. (The conversion made a
 * sorted copy of the marks per text node and compared neighbours' marks as JSON; with the rest of
 * its copies that was 0.05 ms per bench:write body, run twice per Markdown create.) Nodes in one
 * run of marks share one `marks` array: the document is only serialised and read, never changed.
 */
interface Marks {
  known: KnownMark[];
  doc: DocMark[] | undefined;
}

const noMarks: Marks = { known: [], doc: undefined };

/** Converts phrasing into `out`, joining neighbouring text with the same marks as ProseMirror does. */
function inline(nodes: PhrasingContent[], marks: Marks, out: DocNode[]): void {
  for (const node of nodes) inlineNode(node, marks, out);
}

function inlineNode(node: PhrasingContent, marks: Marks, out: DocNode[]): void {
  switch (node.type) {
    case "text":
      if (node.value !== "") pushText(node.value, marks.doc, out);
      return;
    case "inlineCode":
      if (node.value !== "") pushText(node.value, withMark(marks, { type: "code" }).doc, out);
      return;
    case "emphasis":
      inline(node.children, withMark(marks, { type: "italic" }), out);
      return;
    case "strong":
      inline(node.children, withMark(marks, { type: "bold" }), out);
      return;
    case "delete":
      inline(node.children, withMark(marks, { type: "strike" }), out);
      return;
    case "link":
      inline(
        node.children,
        withMark(marks, { type: "link", href: node.url, title: node.title || null }),
        out,
      );
      return;
    case "break":
      out.push(marks.doc ? { type: "hardBreak", marks: marks.doc } : { type: "hardBreak" });
      return;
    case "image": {
      const attrs = imageAttrs(node);
      out.push(marks.doc ? { type: "image", attrs, marks: marks.doc } : { type: "image", attrs });
      return;
    }
    case "html":
      return;
    default:
      if ("children" in node) inline(node.children, marks, out);
  }
}

/** Adds a text node (keys in ProseMirror's order: `type`, `marks`, `text`), or joins it to the last. */
function pushText(text: string, marks: DocMark[] | undefined, out: DocNode[]): void {
  const last = out[out.length - 1];
  if (last?.type === "text" && sameDocMarks(last.marks, marks)) {
    out[out.length - 1] = { ...last, text: `${last.text}${text}` };
  } else {
    out.push(marks ? { type: "text", marks, text } : { type: "text", text });
  }
}

function withMark(marks: Marks, mark: KnownMark): Marks {
  const known = [...marks.known.filter((other) => other.type !== mark.type), mark];
  return { known, doc: sortMarks(known).map(toDocMark) };
}

/** Whether two nodes' marks (as made by `toDocMark`) would serialise to the same JSON. */
function sameDocMarks(a: DocMark[] | undefined, b: DocMark[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    const left = a[index]!;
    const right = b[index]!;
    if (left.type !== right.type) return false;
    if (left.attrs?.href !== right.attrs?.href || left.attrs?.title !== right.attrs?.title) return false;
  }
  return true;
}

function imageAttrs(node: Image): Record<string, unknown> {
  const attrs: Record<string, unknown> = { src: node.url };
  if (node.alt) attrs.alt = node.alt;
  if (node.title) attrs.title = node.title;
  return attrs;
}

function orEmptyParagraph(content: DocNode[]): DocNode[] {
  return content.length > 0 ? content : [{ type: "paragraph" }];
}
