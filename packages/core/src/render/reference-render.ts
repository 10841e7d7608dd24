import type { Root } from "mdast";
import { docToMdastUnlinked } from "./doc-to-mdast.js";
import type { DocNode } from "./editor-doc.js";
import { linkBareUrlsEverywhere } from "./link-bare-urls.js";
import { referenceMdastToDoc } from "./reference-mdast-to-doc.js";
import type { RenderedBody } from "./render-doc.js";
import { libraryMdastToHtml } from "./to-html.js";
import { libraryMdastToMarkdown } from "./to-markdown.js";
import { mdastToText } from "./to-text.js";

/**
 * The render after the parse as it was before it was made faster (issue 13): each step by the
 * library it came from, every step run. Used only by tests (the differential test in
 * `render-differential.test.ts` requires the same bytes from `renderDoc`) and bench scripts.
 */
export function referenceRenderDoc(doc: DocNode): RenderedBody {
  const tree = referenceDocToMdast(doc);
  return {
    body: JSON.stringify(referenceMdastToDoc(tree)),
    html: libraryMdastToHtml(tree),
    text: mdastToText(tree),
    markdown: libraryMdastToMarkdown(tree),
  };
}

/** `docToMdast` with GFM's bare-URL transform run on every tree. */
export function referenceDocToMdast(doc: DocNode): Root {
  const tree = docToMdastUnlinked(doc);
  linkBareUrlsEverywhere(tree);
  return tree;
}
