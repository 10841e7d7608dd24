/**
 * How mdast-util-to-markdown (2.2.x) writes emphasis, strong and strikethrough: it picks each one's
 * marker sequence so that CommonMark reads the same nesting back, encoding a character next to a
 * marker as a character reference where flanking needs it. This is a port of `serialize` and its
 * helpers in its `lib/util/container-phrasing.js` and `lib/util/encode-info.js`, kept line for line
 * so that `writeMarkdown` writes the same bytes; `render-differential.test.ts` compares them.
 */

/** An emphasis, strong or strikethrough with its children already written, or written text. */
export type PhrasingItem = string | AttentionItem;

/** An attention node: its possible marker sequences (preferred first) and its children. */
export interface AttentionItem {
  children: PhrasingItem[];
  sequences: string[];
}

interface Token {
  value: string;
  attention: AttentionItem | undefined;
}

interface Run {
  tokens: Token[];
  markers: Token[];
  start: number;
  end: number;
  open: boolean;
  close: boolean;
  split: boolean;
}

interface Mistake {
  attention: AttentionItem[];
  index: number;
}

type Chosen = Map<AttentionItem, string>;

/** Markers CommonMark splits runs of (`*`, `_`), and whether they are strict inside words. */
const builtins = new Map([
  ["*", false],
  ["_", true],
]);

/** Joins phrasing items, choosing every attention's sequence, as the library's `serialize` does. */
export function serialize(items: PhrasingItem[], before: string, after: string): string {
  const guessed: Chosen = new Map();
  guess(items, guessed, before, after);
  const tokens =
    (guessed.size > 0 ? fix(items, guessed, before, after) : undefined) ??
    fix(items, new Map(), before, after) ??
    render(items, new Map(), before, after);
  let result = "";
  for (const token of tokens) result += token.value;
  return result;
}

function guess(items: PhrasingItem[], chosen: Chosen, before: string, after: string): void {
  let previous = before;
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    if (typeof item === "string") {
      previous = "";
      continue;
    }
    const next = index === items.length - 1 ? after : "";
    const sequence =
      item.sequences.find((value) => {
        const marker = value.charAt(0);
        return (
          (marker !== previous.charAt(0) && marker !== next.charAt(0)) ||
          (items.length === 1 && builtins.has(marker) && value.length > before.length)
        );
      }) ?? item.sequences[0]!;
    if (sequence !== item.sequences[0]) chosen.set(item, sequence);
    guess(item.children, chosen, sequence, sequence);
    previous = sequence;
  }
}

function fix(items: PhrasingItem[], chosen: Chosen, before: string, after: string): Token[] | undefined {
  let tokens = render(items, chosen, before, after);
  let mistake = check(tokens, before, after);
  let current = chosen;
  while (mistake) {
    const next = improve(items, current, mistake, before, after);
    if (!next) return undefined;
    current = next.chosen;
    tokens = next.tokens;
    mistake = next.mistake;
  }
  return tokens;
}

function improve(
  items: PhrasingItem[],
  chosen: Chosen,
  mistake: Mistake,
  before: string,
  after: string,
): { chosen: Chosen; mistake: Mistake | undefined; tokens: Token[] } | undefined {
  for (const attention of mistake.attention) {
    const current = chosen.get(attention) ?? attention.sequences[0];
    for (const sequence of attention.sequences) {
      if (sequence === current) continue;
      const trial = new Map(chosen);
      trial.set(attention, sequence);
      const tokens = render(items, trial, before, after);
      const next = check(tokens, before, after);
      if (!next || next.index > mistake.index) return { chosen: trial, mistake: next, tokens };
    }
  }
  return undefined;
}

function render(items: PhrasingItem[], chosen: Chosen, before: string, after: string): Token[] {
  const tokens: Token[] = [];
  let encodeAfter: string | undefined;
  let previous = lastCharacter(before);
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    if (typeof item === "string") {
      const token: Token = { value: item, attention: undefined };
      if (encodeAfter && encodeAfter === firstCharacter(item)) encode([token], true);
      encodeAfter = undefined;
      tokens.push(token);
      if (token.value) previous = lastCharacter(token.value);
      continue;
    }
    const sequence = chosen.get(item) ?? item.sequences[0]!;
    const marker = sequence.charAt(0);
    const next = items[index + 1];
    const outsideBefore = previous;
    const outsideAfter = firstCharacter(
      next === undefined ? after : typeof next === "string" ? next : (chosen.get(next) ?? next.sequences[0]!),
    );
    const inside = render(item.children, chosen, sequence, sequence);
    const head = inside[0]!.value;
    const open = encodeInfo(outsideBefore.charCodeAt(outsideBefore.length - 1), head.charCodeAt(0), marker);
    if (open.inside) encode(inside, true);
    const tail = lastCharacter(inside[inside.length - 1]!.value);
    const close = encodeInfo(outsideAfter.charCodeAt(0), tail.charCodeAt(tail.length - 1), marker);
    if (close.inside) encode(inside, false);
    if (open.outside && outsideBefore !== "\n" && outsideBefore !== "\r") encode(tokens, false);
    if (close.outside) encodeAfter = outsideAfter;
    tokens.push({ value: sequence, attention: item }, ...inside, { value: sequence, attention: item });
    previous = sequence.charAt(sequence.length - 1);
  }
  return tokens;
}

function encode(tokens: Token[], start: boolean): void {
  const token = tokens[start ? 0 : tokens.length - 1];
  if (!token || token.attention) return;
  const character = start ? firstCharacter(token.value) : lastCharacter(token.value);
  const reference = encodeCharacterReference(character.codePointAt(0)!);
  if (start) {
    token.value = reference + token.value.slice(character.length);
  } else {
    let value = token.value.slice(0, token.value.length - character.length);
    let escapes = 0;
    while (value.charCodeAt(value.length - 1 - escapes) === 92) escapes++;
    if (escapes % 2) value += "\\";
    token.value = value + reference;
  }
}

function check(tokens: Token[], before: string, after: string): Mistake | undefined {
  const runs: Run[] = [];
  const wrong = new Map<Token, Token[]>();
  const runOf = new Map<Token, Run>();
  let index = 0;
  while (index < tokens.length) {
    if (!tokens[index]!.attention) {
      index++;
      continue;
    }
    const marker = tokens[index]!.value.charAt(0);
    const strict = builtins.get(marker);
    let end = index + 1;
    while (end < tokens.length && tokens[end]!.attention && tokens[end]!.value.charAt(0) === marker) end++;
    const head = index ? tokens[index - 1]!.value : before;
    const previous = classifyCharacter(head.charCodeAt(head.length - 1));
    const next = classifyCharacter((end < tokens.length ? tokens[end]!.value : after).charCodeAt(0));
    const open = !next || (next === 2 && Boolean(previous));
    const close = !previous || (previous === 2 && Boolean(next));
    const run: Run = {
      tokens: tokens.slice(index, end),
      markers: [],
      start: 0,
      end: 0,
      open: strict ? open && (Boolean(previous) || !close) : open,
      close: strict ? close && (Boolean(next) || !open) : close,
      split: strict !== undefined,
    };
    for (const token of run.tokens) {
      wrong.set(token, [...run.tokens]);
      runOf.set(token, run);
      let size = token.value.length;
      while (size--) run.markers.push(token);
    }
    run.end = run.markers.length;
    runs.push(run);
    index = end;
  }
  pair(runs, wrong);
  for (let position = 0; position < tokens.length; position++) {
    const involved = wrong.get(tokens[position]!);
    if (involved) return { attention: candidates(tokens, involved, runOf), index: position };
  }
  return undefined;
}

function pair(runs: Run[], wrong: Map<Token, Token[]>): void {
  const openersByMarker = new Map<string, Run[]>();
  for (const closer of runs) {
    const marker = closer.tokens[0]!.value.charAt(0);
    let openers = openersByMarker.get(marker);
    if (!openers) {
      openers = [];
      openersByMarker.set(marker, openers);
    }
    let open = closer.close ? openers.length : 0;
    while (open-- && closer.start < closer.end) {
      const opener = openers[open]!;
      const openerSize = opener.end - opener.start;
      const closerSize = closer.end - closer.start;
      if (
        closer.split
          ? (opener.close || closer.open) && closerSize % 3 && !((openerSize + closerSize) % 3)
          : openerSize !== opener.markers.length || openerSize !== closerSize
      ) {
        continue;
      }
      const size = closer.split ? (openerSize > 1 && closerSize > 1 ? 2 : 1) : closerSize;
      const opening = opener.markers.slice(opener.end - size, opener.end);
      const closing = closer.markers.slice(closer.start, closer.start + size);
      const openToken = opening[0]!;
      const closeToken = closing[0]!;
      if (
        openToken === opening[size - 1] &&
        openToken.value.length === size &&
        closeToken === closing[size - 1] &&
        closeToken.value.length === size &&
        openToken.attention === closeToken.attention
      ) {
        wrong.delete(openToken);
        wrong.delete(closeToken);
      } else {
        const involved = [...new Set([...opening, ...closing])];
        for (const token of involved) {
          const list = wrong.get(token);
          if (list) list.push(...involved);
        }
      }
      opener.end -= size;
      closer.start += size;
      if (opener.start === opener.end) openers.splice(open, 1);
      open = openers.length;
    }
    if (closer.open && closer.start < closer.end) openers.push(closer);
  }
}

function candidates(tokens: Token[], involved: Token[], runOf: Map<Token, Run>): AttentionItem[] {
  const related = new Set<AttentionItem>();
  for (const token of tokens) {
    const siblings = runOf.get(token);
    if (siblings && token.attention && involved.some((other) => other.attention === token.attention)) {
      for (const sibling of siblings.tokens) if (sibling.attention) related.add(sibling.attention);
    }
  }
  const ordered: AttentionItem[] = [];
  for (const token of tokens) {
    if (token.attention && related.delete(token.attention)) ordered.push(token.attention);
  }
  ordered.reverse();
  return ordered;
}

/** What to encode next to a marker: `outside` and `inside` are the character codes either side. */
function encodeInfo(outside: number, inside: number, marker: string): { inside: boolean; outside: boolean } {
  const outsideKind = classifyCharacter(outside);
  const insideKind = classifyCharacter(inside);
  if (outsideKind === undefined) {
    if (insideKind === undefined) {
      return marker === "_" ? { inside: true, outside: true } : { inside: false, outside: false };
    }
    return insideKind === 1 ? { inside: true, outside: true } : { inside: false, outside: true };
  }
  if (outsideKind === 1) {
    return insideKind === 1 ? { inside: true, outside: true } : { inside: false, outside: false };
  }
  return insideKind === 1 ? { inside: true, outside: false } : { inside: false, outside: false };
}

const unicodeWhitespace = /\s/;
const unicodePunctuation = /\p{P}|\p{S}/u;

/**
 * micromark's `classifyCharacter` for a UTF-16 code unit as `charCodeAt` gives it (NaN past the end
 * counts as neither, as there): 1 whitespace, 2 punctuation, undefined anything else.
 */
export function classifyCharacter(code: number): 1 | 2 | undefined {
  if (!(code > -1)) return undefined;
  if (code === 32) return 1;
  const character = String.fromCharCode(code);
  if (unicodeWhitespace.test(character)) return 1;
  if (unicodePunctuation.test(character)) return 2;
  return undefined;
}

export function firstCharacter(value: string): string {
  const code = value.codePointAt(0);
  return code === undefined ? "" : String.fromCodePoint(code);
}

export function lastCharacter(value: string): string {
  const code = value.codePointAt(value.length - 2);
  return code !== undefined && code > 0xffff ? value.slice(-2) : value.slice(-1);
}

export function encodeCharacterReference(code: number): string {
  return `&#x${code.toString(16).toUpperCase()};`;
}
