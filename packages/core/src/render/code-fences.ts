/**
 * Follows fenced code blocks that plainly are ones, line by line, so that `measureMarkdown` can
 * leave their lines out: micromark reads no inline content or containers in them. A fence counts
 * only when it opens at the very start of a line (so no list item or quote holds it) and nothing
 * before could have changed that: once a fence-like line appears that might open a fence these
 * rules do not follow (indented, or inside a possible HTML block), no later fence counts, since
 * the later ones could close it instead of opening their own.
 */
export interface FenceState {
  /** The fence being followed: its character and length. */
  open: { char: string; length: number } | null;
  /** The end markers of an HTML block (`-->`, `</pre>` …) that may be open, which blank lines do not end. */
  html: string[] | null;
  /** Whether the current run of lines since a blank line has a line starting with `<` (an HTML block, maybe). */
  htmlInRun: boolean;
  /** Set for good once fences can no longer be followed with certainty. */
  unsure: boolean;
}

/** A new state, at the start of a document. */
export function newFenceState(): FenceState {
  return { open: null, html: null, htmlInRun: false, unsure: false };
}

/**
 * Reads one line (without its line ending) and tells whether it belongs to a fenced code block
 * (its opening and closing lines included). `content` is the line after its container markers.
 */
export function readFenceLine(state: FenceState, line: string, content: string): boolean {
  if (state.open) {
    if (closesFence(line, state.open)) state.open = null;
    return true;
  }
  if (isBlankLine(line)) {
    state.htmlInRun = false;
    return false;
  }
  followHtml(state, content);
  const fence = readFence(line);
  if (!fence) return false;
  if (fence.indent === 0 && !state.unsure && !state.html && !state.htmlInRun) {
    if (!fence.valid) return false;
    state.open = { char: fence.char, length: fence.length };
    return true;
  }
  if (fence.valid) state.unsure = true;
  return false;
}

/** Notes HTML blocks that may be open: types 1–5 run past blank lines, 6 and 7 up to one. */
function followHtml(state: FenceState, content: string): void {
  const lower = content.toLowerCase();
  if (state.html) {
    if (state.html.some((end) => lower.includes(end))) state.html = null;
    return;
  }
  if (!lower.startsWith("<")) return;
  state.htmlInRun = true;
  const ends = htmlBlockEnds(lower);
  // The end may be on the opening line itself, past its first characters.
  if (ends && !ends.some((end) => lower.includes(end, 2))) state.html = ends;
}

/** How an HTML block of CommonMark's types 1–5 starting at `lower` ends, or null for other lines. */
function htmlBlockEnds(lower: string): string[] | null {
  if (/^<(?:script|pre|style|textarea)/.test(lower))
    return ["</script>", "</pre>", "</style>", "</textarea>"];
  if (lower.startsWith("<!--")) return ["-->"];
  if (lower.startsWith("<![cdata[")) return ["]]>"];
  if (lower.startsWith("<?")) return ["?>"];
  if (lower.startsWith("<!")) return [">"];
  return null;
}

/** A line of three or more backticks or tildes, at most three spaces in. */
function readFence(line: string): { char: string; length: number; indent: number; valid: boolean } | null {
  let indent = 0;
  while (indent < line.length && line[indent] === " ") indent += 1;
  const char = line[indent];
  if (indent > 3 || (char !== "`" && char !== "~")) return null;
  let end = indent;
  while (line[end] === char) end += 1;
  if (end - indent < 3) return null;
  // A backtick fence's info string may not hold a backtick.
  const valid = char === "~" || !line.includes("`", end);
  return { char, length: end - indent, indent, valid };
}

function closesFence(line: string, open: { char: string; length: number }): boolean {
  const fence = readFence(line);
  return (
    fence !== null &&
    fence.char === open.char &&
    fence.length >= open.length &&
    isBlankLine(line.slice(fence.indent + fence.length))
  );
}

function isBlankLine(line: string): boolean {
  for (let index = 0; index < line.length; index++) {
    const code = line.charCodeAt(index);
    if (code !== 32 && code !== 9) return false;
  }
  return true;
}
