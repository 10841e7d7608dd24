/**
 * Recognises GFM table rows written the plain way — starting with `|` at the line's start, with no
 * backslash in the header — so that `measureMarkdown` can count a table's rows apart. It may miss
 * tables (then their rows are counted as one paragraph, an overestimate) but never takes for a
 * table what micromark reads as a paragraph.
 */

/**
 * The cells of a header row (those with text, as micromark counts them), or 0 when the line is not
 * plainly one.
 */
export function tableCells(line: string): number {
  if (!line.startsWith("|") || line.includes("\\")) return 0;
  let cells = 0;
  let text = false;
  for (let index = 1; index < line.length; index++) {
    const char = line[index];
    if (char === "|") {
      if (text) cells += 1;
      text = false;
    } else if (char !== " " && char !== "\t") {
      text = true;
    }
  }
  return text ? cells + 1 : cells;
}

/** The cells of a delimiter row such as `| --- | :-: |` (closing `|` required), or -1. */
export function tableDelimiterCells(line: string): number {
  if (!line.startsWith("|")) return -1;
  let cells = 0;
  let index = 1;
  for (;;) {
    index = skipSpaces(line, index);
    if (index === line.length) return cells > 0 ? cells : -1;
    if (line[index] === ":") index += 1;
    const dashes = index;
    while (line[index] === "-") index += 1;
    if (index === dashes) return -1;
    if (line[index] === ":") index += 1;
    index = skipSpaces(line, index);
    if (line[index] !== "|") return -1;
    index += 1;
    cells += 1;
  }
}

function skipSpaces(line: string, start: number): number {
  let index = start;
  while (line[index] === " " || line[index] === "\t") index += 1;
  return index;
}
