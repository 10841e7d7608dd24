import type { PhrasingContent, Root, RootContent } from "mdast";

/**
 * Renders mdast as plain text: blocks apart by a blank line, list items and table rows by a newline,
 * cells by a tab. Images give their alt text (it stands in for them, as in a screen reader); the
 * excerpt break and thematic breaks give nothing.
 */
export function mdastToText(tree: Root): string {
  return blocksText(tree.children, "\n\n").trim();
}

function blocksText(nodes: RootContent[], separator: string): string {
  return nodes
    .map(blockText)
    .filter((text) => text !== "")
    .join(separator);
}

function blockText(node: RootContent): string {
  switch (node.type) {
    case "paragraph":
    case "heading":
      return phrasingText(node.children).trim();
    case "list":
      return node.children.map((item) => blocksText(item.children, "\n")).join("\n");
    case "code":
      return node.value;
    case "table":
      return node.children
        .map((row) => row.children.map((cell) => phrasingText(cell.children)).join("\t"))
        .join("\n");
    case "blockquote":
      return blocksText(node.children, "\n\n");
    case "thematicBreak":
    case "readMore":
    case "html":
    case "definition":
      return "";
    default:
      return "children" in node ? blocksText(node.children, "\n\n") : "";
  }
}

function phrasingText(nodes: PhrasingContent[]): string {
  return nodes.map(inlineText).join("");
}

function inlineText(node: PhrasingContent): string {
  switch (node.type) {
    case "text":
    case "inlineCode":
      return node.value;
    case "break":
      return "\n";
    case "image":
      return node.alt ?? "";
    case "html":
      return "";
    default:
      return "children" in node ? phrasingText(node.children) : "";
  }
}
