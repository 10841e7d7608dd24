/**
 * How much work micromark may do on the inline content of `text` from `start` to `end`, taken as
 * one paragraph, in arbitrary units; linear to compute. An upper bound, not a prediction.
 *
 * micromark matches brackets and emphasis by walking back over everything before them in the
 * paragraph, tries each run of backticks as a code span by reading ahead to the next run of the
 * same length, and merges the pieces of text between two constructs (an escape, a code span, a
 * link…) in place in the paragraph's list of events, moving all that follows. So each mark that
 * may start a construct — `[`, `]`, `<`, `\`, `&`, `@`, `://`, `www.`, and each run of `*`, `_`,
 * `~` or backticks — may cost the paragraph's length; each run of backticks also costs the
 * distance it reads ahead, times {@link backtickWeight}; and each line, where text is merged too,
 * the paragraph's length over {@link lineDivisor}.
 */
export function inlineCost(text: string, start = 0, end = text.length): InlineCost {
  const length = end - start;
  let marks = 0;
  let lines = 0;
  const ticks: Tick[] = [];
  let previous = -1;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    // Most characters are none of the marks: one table lookup tells them apart.
    const kind = code < 128 ? charKinds[code] : plain;
    if (kind === plain) {
      previous = code;
      continue;
    }
    if (kind === lineEnd) {
      if (code === 10 || text.charCodeAt(index + 1) !== 10) lines += 1;
    } else if (kind === singleMark || (kind === linkStart && startsLink(text, index, end))) marks += 1;
    else if (kind === runMark && code !== previous) {
      marks += 1;
      if (code === 96) ticks.push(readTick(text, index, start, end));
    }
    previous = code;
  }
  const lineWork = (lines / lineDivisor) * length;
  return { work: marks * length + lineWork + backtickWeight * readAhead(ticks, end), lineWork };
}

/** The work, and the part of it that merging each line's text costs. */
export interface InlineCost {
  work: number;
  lineWork: number;
}

const plain = 0;
const lineEnd = 1;
/** `[`, `]`, `<`, `\`, `&`, `@`: each may start a construct. */
const singleMark = 2;
/** `*`, `_`, `~`, backtick: a run of them is one construct at most. */
const runMark = 3;
/** `:` or `w` / `W`: where `://` or `www.` may start. */
const linkStart = 4;

/** The kind of each ASCII character; any other is plain. */
const charKinds = new Uint8Array(128);
charKinds[10] = lineEnd;
charKinds[13] = lineEnd;
for (const code of [91, 93, 60, 92, 38, 64]) charKinds[code] = singleMark;
for (const code of [42, 95, 126, 96]) charKinds[code] = runMark;
for (const code of [58, 119, 87]) charKinds[code] = linkStart;

/** `://` or `www.` (any case): where GFM finds a bare link. */
function startsLink(text: string, index: number, end: number): boolean {
  const code = text.charCodeAt(index);
  if (code === 58) return index + 2 < end && text.startsWith("//", index + 1);
  return (
    (code === 119 || code === 87) &&
    index + 3 < end &&
    (text.charCodeAt(index + 1) | 32) === 119 &&
    (text.charCodeAt(index + 2) | 32) === 119 &&
    text.charCodeAt(index + 3) === 46
  );
}

/** Reading ahead for a code span costs this many times what walking back over a character does. */
export const backtickWeight = 8;

/** Moving an event costs this many times less than walking back over one. */
export const lineDivisor = 8;

/** A run of backticks. */
interface Tick {
  at: number;
  length: number;
  /** Whether a backslash escapes its first backtick. */
  escaped: boolean;
}

function readTick(text: string, at: number, start: number, end: number): Tick {
  let runEnd = at + 1;
  while (runEnd < end && text.charCodeAt(runEnd) === 96) runEnd += 1;
  let slashes = 0;
  for (let index = at - 1; index >= start && text.charCodeAt(index) === 92; index--) slashes += 1;
  return { at, length: runEnd - at, escaped: slashes % 2 === 1 };
}

/**
 * The characters micromark reads ahead from each run of backticks: to the next run of the same
 * length, or to the end. Every run counts as an opening one, even runs that a code span before it
 * already closed, so the figure never falls short of the parser's.
 */
function readAhead(ticks: Tick[], end: number): number {
  const nextOfLength = new Map<number, number>();
  let total = 0;
  for (let index = ticks.length - 1; index >= 0; index--) {
    const tick = ticks[index] as Tick;
    // An escaped first backtick is text, so the opening run is one shorter; inside a code span
    // backslashes are plain text, so the closing run is matched by its raw length.
    const opening = tick.escaped ? tick.length - 1 : tick.length;
    if (opening > 0) total += (nextOfLength.get(opening) ?? end) - tick.at;
    nextOfLength.set(tick.length, tick.at);
  }
  return total;
}
