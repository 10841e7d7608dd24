import { docToMdast } from "./doc-to-mdast.js";
import type { DocNode } from "./editor-doc.js";
import { mdastToDoc } from "./mdast-to-doc.js";
import { mdastToHtml } from "./to-html.js";
import { mdastToMarkdown } from "./to-markdown.js";
import { mdastToText } from "./to-text.js";

/** What a stored post body is made of; all produced at write time. */
export interface RenderedBody {
  /** The editor document: JSON string of a ProseMirror/TipTap `doc` node. */
  body: string;
  /** Sanitised HTML. */
  html: string;
  /** Plain text: blocks apart by a blank line, no markup. */
  text: string;
  /** Markdown, for `content=markdown` reads. */
  markdown: string;
}

/**
 * Every output comes from one mdast tree made from the editor document, so the stored `body` and
 * what is rendered from it never disagree, whichever format the body arrived in.
 */
export function renderDoc(doc: DocNode): RenderedBody {
  const tree = docToMdast(doc);
  return {
    body: JSON.stringify(mdastToDoc(tree)),
    html: mdastToHtml(tree),
    text: mdastToText(tree),
    markdown: mdastToMarkdown(tree),
  };
}
