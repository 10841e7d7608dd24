import { readEditorDoc } from "./editor-doc.js";
import { mdastToDoc } from "./mdast-to-doc.js";
import { parseMarkdown, refusingOverflow } from "./parse-markdown.js";
import { type RenderedBody, renderDoc } from "./render-doc.js";

export type { RenderedBody };

/** Renders a `bodyMarkdown` into every stored form. @see spec § Body formats */
export function renderMarkdown(markdown: string): RenderedBody {
  return refusingOverflow("bodyMarkdown", () => renderDoc(mdastToDoc(parseMarkdown(markdown))));
}

/**
 * Renders a `body` editor document (a JSON string); throws VALIDATION_ERROR when unreadable, or
 * too complex to render.
 */
export function renderEditorDoc(body: string): RenderedBody {
  return refusingOverflow("body", () => renderDoc(readEditorDoc(body)));
}
