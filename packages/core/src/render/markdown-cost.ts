import { addBlankLine, addCodeLine, addLine, newBlockCost } from "./block-cost.js";
import { newFenceState, readFenceLine } from "./code-fences.js";
import { readContainerMarkers } from "./container-markers.js";
import { inlineCost } from "./inline-cost.js";
import { tableCells, tableDelimiterCells } from "./table-rows.js";

/** What a Markdown text will cost micromark to parse, measured in one linear pass before parsing it. */
export interface MarkdownMeasure {
  /** The most containers (`>`, list items) one line opens, counted up to the `maxLineMarkers` asked for. */
  widestLine: number;
  /** How deep block quotes and lists nest, as estimated from markers and indentation. */
  nesting: number;
  /** Upper bound of micromark's work on containers (see `BlockCost`). */
  blockWork: number;
  /** Link references: each `]` is looked up among every `]:` (definitions), one by one. */
  referenceWork: number;
  /** {@link inlineCost} summed over runs of lines that hold at most one paragraph each, or part of one. */
  inlineWork: number;
  /** The part of `inlineWork` that merging each line's text costs. */
  inlineLineWork: number;
}

/**
 * Measures `markdown` in time linear in its length, whatever it holds. Inline runs end at blank
 * lines and at lines that always start a new block (a bullet list item with text, at most three
 * spaces in); each row of a table that plainly is one counts on its own, and fenced code that
 * plainly is some not at all. Anything less sure stays in one run, which can only overestimate.
 */
export function measureMarkdown(markdown: string, options: { maxLineMarkers: number }): MarkdownMeasure {
  const blocks = newBlockCost();
  const fences = newFenceState();
  const runs = { work: 0, lineWork: 0, start: -1, afterBlank: true, header: 0, table: false };
  const closeRun = (end: number) => {
    if (runs.start !== -1) {
      const cost = inlineCost(markdown, runs.start, end);
      runs.work += cost.work;
      runs.lineWork += cost.lineWork;
    }
    runs.start = -1;
  };
  for (let lineStart = 0; lineStart <= markdown.length; ) {
    const lineEnd = findLineEnd(markdown, lineStart);
    const line = markdown.slice(lineStart, lineEnd);
    const blank = isBlank(line);
    const prefix = blank ? null : readContainerMarkers(line, options.maxLineMarkers);
    const inFence = fences.open !== null;
    if (readFenceLine(fences, line, prefix ? line.slice(prefix.contentStart) : "")) {
      closeRun(lineStart);
      if (prefix && !inFence) {
        // The opening line: at a line's start, it closes every container.
        addLine(blocks, prefix);
        blocks.open.length = 0;
      } else {
        addCodeLine(blocks);
      }
      Object.assign(runs, { afterBlank: false, header: 0, table: false });
    } else if (!prefix) {
      closeRun(lineStart);
      Object.assign(runs, { afterBlank: true, header: 0, table: false });
      addBlankLine(blocks);
    } else {
      // For each heading underlined with `=` or `-`, micromark copies the events of the blocks so
      // far, which are about twice the document's.
      if (!blocks.previousBlank && isUnderline(line)) blocks.work += 2 * blocks.events;
      addLine(blocks, prefix);
      readInlineLine(runs, line, closeRun, lineStart);
    }
    lineStart = lineEnd + lineEndingLength(markdown, lineEnd);
  }
  closeRun(markdown.length);
  return {
    widestLine: blocks.widestLine,
    nesting: blocks.nesting,
    blockWork: blocks.work,
    referenceWork: countReferences(markdown),
    inlineWork: runs.work,
    inlineLineWork: runs.lineWork,
  };
}

/** Where a line of text falls among the inline runs: it continues one or starts the next. */
function readInlineLine(
  runs: { start: number; afterBlank: boolean; header: number; table: boolean },
  line: string,
  closeRun: (end: number) => void,
  lineStart: number,
): void {
  const firstOfRun = runs.start === -1;
  if (runs.table && line.startsWith("|")) {
    closeRun(lineStart);
  } else if (runs.header > 0 && !firstOfRun && tableDelimiterCells(line) === runs.header) {
    // A header row and its delimiter row: what follows, row by row, is the table's body.
    runs.table = true;
    closeRun(lineStart);
  } else if (startsListItem(line) || runs.table) {
    closeRun(lineStart);
    runs.table = false;
  }
  runs.header = firstOfRun && runs.afterBlank ? tableCells(line) : 0;
  if (runs.start === -1) runs.start = lineStart;
  runs.afterBlank = false;
}

/**
 * True for a line that starts a list item with text — a bullet or `1.` / `1)`, at most three
 * spaces in — which always begins a new block, whatever came before (such an item interrupts a
 * paragraph), so the inline run before it ends there.
 */
function startsListItem(line: string): boolean {
  let index = 0;
  while (index < 3 && line[index] === " ") index += 1;
  const char = line[index];
  let end: number;
  if (char === "-" || char === "+" || char === "*") end = index + 1;
  else if (char === "1" && (line[index + 1] === "." || line[index + 1] === ")")) end = index + 2;
  else return false;
  if (line[end] !== " " && line[end] !== "\t") return false;
  return !isBlank(line.slice(end));
}

/** A line of `=` or of `-` (after any `>` and spaces) that may underline a heading. */
function isUnderline(line: string): boolean {
  let index = 0;
  while (line[index] === " " || line[index] === "\t" || line[index] === ">") index += 1;
  const char = line[index];
  if (char !== "=" && char !== "-") return false;
  while (line[index] === char) index += 1;
  return isBlank(line.slice(index));
}

/** `]` count × `]:` count: each closing bracket is looked up in the list of definitions. */
function countReferences(markdown: string): number {
  let closings = 0;
  let definitions = 0;
  for (let index = markdown.indexOf("]"); index !== -1; index = markdown.indexOf("]", index + 1)) {
    closings += 1;
    if (markdown.charCodeAt(index + 1) === 58) definitions += 1;
  }
  return closings * definitions;
}

function findLineEnd(markdown: string, start: number): number {
  for (let index = start; index < markdown.length; index++) {
    const code = markdown.charCodeAt(index);
    if (code === 10 || code === 13) return index;
  }
  return markdown.length;
}

function lineEndingLength(markdown: string, at: number): number {
  if (at >= markdown.length) return 1;
  return markdown.charCodeAt(at) === 13 && markdown.charCodeAt(at + 1) === 10 ? 2 : 1;
}

function isBlank(line: string): boolean {
  for (let index = 0; index < line.length; index++) {
    const code = line.charCodeAt(index);
    if (code !== 32 && code !== 9) return false;
  }
  return true;
}
