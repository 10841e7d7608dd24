/**
 * A block quote (`>`), list item (`-`, `+`, `*`, `1.`, `1)`) or GFM footnote definition
 * (`[^label]:`) marker at the start of a line: the containers micromark knows.
 */
export interface ContainerMarker {
  /** `>` for a block quote; the bullet, or `.` / `)` for an ordered item; `^` for a footnote definition. */
  kind: ">" | "-" | "+" | "*" | "." | ")" | "^";
  /** Where the marker starts (tabs advance to the next multiple of four). */
  column: number;
  /** Where the container's content starts: lines indented this far continue a list item. */
  contentColumn: number;
  /**
   * Whether it surely opens a container even after a paragraph line (a `>`, or a bullet or `1.`
   * with text after it); other markers may be read as the paragraph's text instead.
   */
  interrupts: boolean;
}

/** The container markers a line starts with, and where its first other character is. */
export interface ContainerPrefix {
  markers: ContainerMarker[];
  /** The column of the first other character. */
  indent: number;
  /** Its index in the line. */
  contentStart: number;
}

/**
 * Reads the container markers that open a line (`> - 1. text`), at most `max` of them, in one pass
 * without backtracking. It errs towards seeing more containers than CommonMark would (any
 * indentation is allowed before a marker), never fewer, since callers use it to bound work; a
 * thematic break (`- - -`, `* * *`) is not read as markers.
 */
export function readContainerMarkers(line: string, max: number): ContainerPrefix {
  const markers: ContainerMarker[] = [];
  let index = 0;
  let column = 0;
  let breakChecked: string | undefined;
  while (markers.length < max) {
    ({ index, column } = skipSpace(line, index, column));
    const char = line[index];
    if (char === ">") {
      const after = skipSpace(line, index + 1, column + 1);
      markers.push({
        kind: ">",
        column,
        contentColumn: Math.min(after.column, column + 2),
        interrupts: true,
      });
      index += 1;
      column += 1;
      continue;
    }
    const footnoteEnd = footnoteLabelEnd(line, index);
    if (footnoteEnd !== -1) {
      // A footnote definition's content goes on in lines indented by four.
      markers.push({ kind: "^", column, contentColumn: column + 4, interrupts: false });
      column += footnoteEnd - index;
      index = footnoteEnd;
      continue;
    }
    const end = listMarkerEnd(line, index);
    if (end === -1) break;
    const kind = (end - index === 1 ? char : line[end - 1]) as ContainerMarker["kind"];
    if ((kind === "-" || kind === "*") && breakChecked !== kind) {
      if (isThematicBreak(line, index, kind)) break;
      breakChecked = kind;
    }
    const markerEnd = column + (end - index);
    const after = skipSpace(line, end, markerEnd);
    const gap = after.column - markerEnd;
    const text = after.index < line.length;
    markers.push({
      kind,
      column,
      contentColumn: gap >= 1 && gap <= 4 && text ? after.column : markerEnd + 1,
      interrupts: text && (end - index === 1 || (line.startsWith("1", index) && end - index === 2)),
    });
    index = end;
    column = markerEnd;
  }
  const content = skipSpace(line, index, column);
  return { markers, indent: content.column, contentStart: content.index };
}

function skipSpace(line: string, start: number, startColumn: number): { index: number; column: number } {
  let index = start;
  let column = startColumn;
  for (;;) {
    const char = line[index];
    if (char === " ") column += 1;
    else if (char === "\t") column += 4 - (column % 4);
    else return { index, column };
    index += 1;
  }
}

/** The index after a list marker starting at `index` (which a space, tab or the line end must follow), or -1. */
function listMarkerEnd(line: string, index: number): number {
  const char = line[index];
  let end = index;
  if (char === "-" || char === "+" || char === "*") end = index + 1;
  else {
    while (end - index < 9 && isDigit(line.charCodeAt(end))) end += 1;
    if (end === index || (line[end] !== "." && line[end] !== ")")) return -1;
    end += 1;
  }
  const next = line[end];
  return next === undefined || next === " " || next === "\t" ? end : -1;
}

/** The index after `[^label]:` starting at `index` (a label of at most 999 characters, no `]`), or -1. */
function footnoteLabelEnd(line: string, index: number): number {
  if (line[index] !== "[" || line[index + 1] !== "^") return -1;
  const close = line.indexOf("]", index + 2);
  if (close === -1 || close - index > 1001 || line[close + 1] !== ":") return -1;
  return close + 2;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * True when the rest of the line from `start` is a thematic break made of `char`. Called at most
 * once per marker kind and line, so a line of markers is still read in linear time.
 */
function isThematicBreak(line: string, start: number, char: string): boolean {
  let count = 0;
  for (let index = start; index < line.length; index++) {
    const current = line[index];
    if (current === char) count += 1;
    else if (current !== " " && current !== "\t") return false;
  }
  return count >= 3;
}
