import type { ContainerMarker, ContainerPrefix } from "./container-markers.js";

/**
 * Follows block quotes, list items and footnote definitions line by line, as CommonMark opens,
 * continues and closes them, to bound what micromark spends on them. micromark keeps one list of
 * events for the document's containers and copies all of it each time it closes containers after a
 * line that neither continues nor opens one (`> a` then `# b`, or a quote's last line then a blank
 * line), and each time a list item gives way to the next while holding containers of its own; a
 * lazy line (`> a` then `b`) has it search back as far. So each of those lines costs the events so
 * far. The estimate errs towards keeping containers open and towards lazy lines.
 */
export interface BlockCost {
  /** The containers estimated open after the previous line, outermost first. */
  open: ContainerMarker[];
  previousBlank: boolean;
  /** micromark's document events so far, estimated (see `countEvents`). */
  events: number;
  /** The most containers one line opened. */
  widestLine: number;
  /** The most containers open at once. */
  nesting: number;
  /** Events micromark copies or searches, summed (an upper bound). */
  work: number;
}

/** A new, empty tally. */
export function newBlockCost(): BlockCost {
  return { open: [], previousBlank: true, events: 0, widestLine: 0, nesting: 0, work: 0 };
}

/** Adds a blank line: it ends block quotes (and what they hold); list items go on past it. */
export function addBlankLine(state: BlockCost): void {
  const firstQuote = state.open.findIndex((container) => container.kind === ">");
  if (firstQuote !== -1) {
    state.open.length = firstQuote;
    state.work += state.events;
  }
  state.previousBlank = true;
  countEvents(state, 0);
}

/** Adds a line that is not blank, given its container markers. */
export function addLine(state: BlockCost, prefix: ContainerPrefix): void {
  const { markers } = prefix;
  let matched = 0;
  let used = 0;
  for (const container of state.open) {
    const next = markers[used];
    if (container.kind === ">") {
      if (next?.kind !== ">") break;
      used += 1;
    } else if ((next?.column ?? prefix.indent) < container.contentColumn) break;
    matched += 1;
  }
  const fresh = markers.slice(used);
  const first = fresh[0];
  if (first) {
    const replaced = state.open[matched];
    const sibling = replaced !== undefined && isListItem(replaced) && replaced.kind === first.kind;
    // A new item of the same list closes the last one's containers the slow way; a new container
    // that surely is one closes them cheaply; a marker that may be paragraph text instead costs as
    // a lazy line does.
    const base = state.open[matched - 1]?.contentColumn ?? 0;
    const surelyOpens = first.interrupts && first.column - base <= 3;
    const closesNested = state.open.length - matched - (sibling ? 1 : 0) > 0;
    if (sibling ? closesNested : !surelyOpens && matched < state.open.length) state.work += state.events;
    state.open = [...state.open.slice(0, matched), ...fresh];
  } else if (matched < state.open.length) {
    // Either a lazy line or one that closes containers: both cost the events so far.
    state.work += state.events;
    if (state.previousBlank) state.open.length = matched;
  }
  state.widestLine = Math.max(state.widestLine, markers.length);
  state.nesting = Math.max(state.nesting, state.open.length);
  state.previousBlank = false;
  countEvents(state, markers.length);
}

function isListItem(container: ContainerMarker): boolean {
  return container.kind !== ">" && container.kind !== "^";
}

/** Adds a line of fenced code: the fence's opening line closed every container. */
export function addCodeLine(state: BlockCost): void {
  state.open.length = 0;
  state.previousBlank = false;
  countEvents(state, 0);
}

/**
 * Adds a line's document events: a few for the line itself, two for each container it goes on in
 * (a prefix or an indent), four for each marker.
 */
function countEvents(state: BlockCost, markers: number): void {
  state.events += 3 + 2 * state.open.length + 4 * markers;
}
