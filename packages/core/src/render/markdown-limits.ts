import { invalidField } from "../errors.js";
import { maxNesting } from "./editor-doc.js";
import { measureInlineRegions } from "./inline-regions.js";
import { measureMarkdown } from "./markdown-cost.js";

/**
 * What a Markdown body may cost to parse. micromark's work grows with the square of some counts;
 * these bounds keep a body of any allowed length within a few seconds of parsing, far above what
 * real posts reach. The units are those of `measureMarkdown` and `inlineCost`. @see docs/rendering.md
 */
export const markdownLimits = {
  /** Containers (`>`, list items) one line may open. */
  lineMarkers: 100,
  /** How deep block quotes and lists may nest; the same bound as the parsed tree's. */
  nesting: maxNesting,
  /** Events copied or searched on closing containers, lazy lines and underlined headings. */
  blockWork: 100_000_000,
  /** Paragraph length times the marks in it, summed (see `inlineCost`). */
  inlineWork: 100_000_000,
  /** `]` count times `]:` count. */
  referenceWork: 40_000_000,
  /**
   * Past this much line work (see `inlineCost`), inline work is not measured exactly: the parse
   * that measuring takes would itself be slow.
   */
  exactInlineLineWork: 50_000_000,
} as const;

/**
 * Throws VALIDATION_ERROR naming `field` when parsing `markdown` would take too long; linear in
 * its length. Inline work is first measured with blank-line-separated runs of lines standing for
 * paragraphs, and only when that is over the bound, exactly (which costs a parse of the blocks).
 */
export function checkMarkdownLimits(markdown: string, field: string): void {
  const measure = measureMarkdown(markdown, { maxLineMarkers: markdownLimits.lineMarkers });
  if (measure.widestLine >= markdownLimits.lineMarkers || measure.nesting > markdownLimits.nesting) {
    throw invalidField(field, "is nested too deeply");
  }
  if (measure.blockWork > markdownLimits.blockWork) {
    throw invalidField(
      field,
      "is too complex to render: too many quotes, lists, footnotes or underlined headings, or lines continuing a quote or list without its marker",
    );
  }
  if (measure.referenceWork > markdownLimits.referenceWork) {
    throw invalidField(field, "is too complex to render: too many link references and definitions");
  }
  if (
    measure.inlineWork > markdownLimits.inlineWork &&
    (measure.inlineLineWork > markdownLimits.exactInlineLineWork ||
      measureInlineRegions(markdown) > markdownLimits.inlineWork)
  ) {
    throw invalidField(
      field,
      "is too complex to render: a paragraph is too long for the marks in it (brackets, emphasis, backticks, escapes, links)",
    );
  }
}
