import type StateInline from "markdown-it/lib/rules_inline/state_inline.mjs";

/**
 * GFM autolink literals (`www.example.com`, `https://example.com`, `me@example.com`) for
 * markdown-it, read exactly as micromark-extension-gfm-autolink-literal reads them: the same
 * characters may come before them, the same domain, path and trailing-punctuation rules, and the
 * link's text is the source as written (character references are not decoded). Not recognised
 * inside a link's text or an image's description, as in micromark.
 */

/** What the literal rule needs from the parse: where it is, and whether to give the body to micromark. */
export interface LiteralEnv {
  /** Set when a literal stands after a `[` that may still be open: micromark reads that case. */
  route?: boolean;
  /** How many image descriptions are being read (markdown-it reads them as separate inline content). */
  inImage?: number;
}

const none = -1;

function code(src: string, pos: number, max: number): number {
  return pos < max ? src.charCodeAt(pos) : none;
}

const isAsciiAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isAsciiAlphanumeric = (c: number) => isAsciiAlpha(c) || (c >= 48 && c <= 57);
const isAsciiControl = (c: number) => c < 32 || c === 127;
/** micromark's `markdownLineEndingOrSpace`: tab, line feed, carriage return, space. */
export const isSpaceOrEol = (c: number) => c === 9 || c === 10 || c === 13 || c === 32;
export const isUnicodeWhitespace = (c: number) => c !== none && /\s/.test(String.fromCharCode(c));
export const isUnicodePunctuation = (c: number) =>
  c !== none && /[!-/:-@[-`{-~]|\p{P}|\p{S}/u.test(String.fromCharCode(c));
const isEnd = (c: number) => c === none || isSpaceOrEol(c) || isUnicodeWhitespace(c);
const isAtext = (c: number) => c === 43 || c === 45 || c === 46 || c === 95 || isAsciiAlphanumeric(c);

function previousWww(c: number): boolean {
  return (
    c === none || c === 40 || c === 42 || c === 95 || c === 91 || c === 93 || c === 126 || isSpaceOrEol(c)
  );
}
const previousProtocol = (c: number) => !isAsciiAlpha(c);
const previousEmail = (c: number) => !(c === 47 || isAtext(c));

const trailPunctuation = new Set([33, 34, 39, 41, 42, 44, 46, 58, 59, 63, 95, 126]);
const pathPunctuation = new Set([33, 34, 38, 39, 41, 42, 44, 46, 58, 59, 60, 63, 93, 95, 126]);

/** Whether what starts at `pos` is trailing punctuation, not part of the link (micromark's `trail`). */
function isTrail(src: string, pos: number, max: number): boolean {
  let at = pos;
  for (;;) {
    let c = code(src, at, max);
    if (trailPunctuation.has(c)) {
      at++;
      continue;
    }
    if (c === 38) {
      at++;
      if (!isAsciiAlpha(code(src, at, max))) return false;
      while (isAsciiAlpha(code(src, at, max))) at++;
      if (code(src, at, max) !== 59) return false;
      at++;
      continue;
    }
    if (c === 93) {
      at++;
      c = code(src, at, max);
      if (c === none || c === 40 || c === 91 || isSpaceOrEol(c) || isUnicodeWhitespace(c)) return true;
      continue;
    }
    return c === 60 || isEnd(c);
  }
}

/** The end of a domain starting at `pos`, or -1 when there is none (micromark's `domain`). */
function domainEnd(src: string, pos: number, max: number): number {
  let underscoreInLast = false;
  let underscoreInLastButOne = false;
  let seen = false;
  let at = pos;
  for (;;) {
    const c = code(src, at, max);
    if (c === 46 || c === 95) {
      if (isTrail(src, at, max)) break;
      if (c === 95) underscoreInLast = true;
      else {
        underscoreInLastButOne = underscoreInLast;
        underscoreInLast = false;
      }
      at++;
      continue;
    }
    if (isEnd(c) || (c !== 45 && isUnicodePunctuation(c))) break;
    seen = true;
    at++;
  }
  return underscoreInLast || underscoreInLastButOne || !seen ? -1 : at;
}

/** The end of a path starting at `pos` (micromark's `path`). */
function pathEnd(src: string, pos: number, max: number): number {
  let opened = 0;
  let closed = 0;
  let at = pos;
  for (;;) {
    const c = code(src, at, max);
    if (c === 40) {
      opened++;
      at++;
      continue;
    }
    if (c === 41 && closed < opened) {
      closed++;
      at++;
      continue;
    }
    if (pathPunctuation.has(c)) {
      if (isTrail(src, at, max)) return at;
      if (c === 41) closed++;
      at++;
      continue;
    }
    if (isEnd(c)) return at;
    at++;
  }
}

/** A literal starting at `pos`: its end and URL, or undefined. */
function literalAt(src: string, pos: number, max: number): { end: number; url: string } | undefined {
  const c = code(src, pos, max);
  const previous = pos > 0 ? src.charCodeAt(pos - 1) : none;
  // micromark tries the e-mail form first at every character, then www or http(s).
  if (isAtext(c) && previousEmail(previous)) {
    const email = emailEnd(src, pos, max);
    if (email !== -1) return { end: email, url: `mailto:${src.slice(pos, email)}` };
  }
  if ((c === 87 || c === 119) && previousWww(previous)) {
    const prefix = src.slice(pos, pos + 4).toLowerCase();
    if (prefix === "www." && pos + 4 < max) {
      const domain = domainEnd(src, pos, max);
      if (domain !== -1) {
        const end = pathEnd(src, domain, max);
        return { end, url: `http://${src.slice(pos, end)}` };
      }
    }
  }
  if ((c === 72 || c === 104) && previousProtocol(previous)) {
    let at = pos;
    while (isAsciiAlpha(code(src, at, max)) && at - pos < 5) at++;
    const protocol = src.slice(pos, at).toLowerCase();
    if (
      (protocol === "http" || protocol === "https") &&
      code(src, at, max) === 58 &&
      code(src, at + 1, max) === 47 &&
      code(src, at + 2, max) === 47
    ) {
      at += 3;
      const next = code(src, at, max);
      if (!(next === none || isAsciiControl(next) || isEnd(next) || isUnicodePunctuation(next))) {
        const domain = domainEnd(src, at, max);
        if (domain !== -1) {
          const end = pathEnd(src, domain, max);
          return { end, url: src.slice(pos, end) };
        }
      }
    }
  }
  return undefined;
}

function emailEnd(src: string, pos: number, max: number): number {
  let at = pos;
  while (isAtext(code(src, at, max))) at++;
  if (code(src, at, max) !== 64) return -1;
  at++;
  let dot = false;
  let data = false;
  for (;;) {
    const c = code(src, at, max);
    if (c === 46) {
      if (!isAsciiAlphanumeric(code(src, at + 1, max))) break;
      dot = true;
      at++;
      continue;
    }
    if (c === 45 || c === 95 || isAsciiAlphanumeric(c)) {
      data = true;
      at++;
      continue;
    }
    break;
  }
  return data && dot && isAsciiAlpha(src.charCodeAt(at - 1)) ? at : -1;
}

/** Whether a literal may start at `pos`, so that the text rule stops there (a cheap check). */
function mayStartLiteral(src: string, pos: number, max: number): boolean {
  const c = src.charCodeAt(pos);
  const previous = pos > 0 ? src.charCodeAt(pos - 1) : none;
  if ((c === 87 || c === 119) && previousWww(previous)) return true;
  if ((c === 72 || c === 104) && previousProtocol(previous)) return true;
  if (isAtext(c) && previousEmail(previous)) {
    let at = pos;
    while (at < max && isAtext(src.charCodeAt(at))) at++;
    return code(src, at, max) === 64;
  }
  return false;
}

/** How far the bracket scan of an inline content has gone, so each character is scanned once. */
const bracketScans = new WeakMap<
  StateInline,
  { pos: number; depth: number; unsure: boolean; bracket: boolean }
>();

/**
 * Whether a `[` before `pos` may still be open, as micromark sees it (`previousUnbalanced`):
 * `false` (none is), or `undefined` (cannot tell without micromark: one is left open, or code
 * spans, HTML or escapes stand before it).
 */
function openBracketBefore(state: StateInline, pos: number): false | undefined {
  let scan = bracketScans.get(state);
  if (!scan || scan.pos > pos) {
    scan = { pos: 0, depth: 0, unsure: false, bracket: false };
    bracketScans.set(state, scan);
  }
  const src = state.src;
  for (; scan.pos < pos; scan.pos++) {
    const c = src.charCodeAt(scan.pos);
    if (c === 91) {
      scan.depth++;
      scan.bracket = true;
    } else if (c === 93 && scan.depth > 0) scan.depth--;
    else if (c === 96 || c === 60 || c === 92) scan.unsure = true;
  }
  if (!scan.bracket) return false;
  // Brackets in a link's destination or title, or one left open, may be what micromark counts
  // differently: only "every `[` closed, nothing else in the way" is certain.
  return scan.unsure || scan.depth > 0 ? undefined : false;
}

/** The inline rule: a literal autolink becomes link tokens; the text is the source as written. */
export function autolinkLiteral(state: StateInline, silent: boolean): boolean {
  if (silent || state.level > 0) return false;
  const env = state.env as LiteralEnv;
  if (env.inImage) return false;
  const found = literalAt(state.src, state.pos, state.posMax);
  if (!found) return false;
  const open = openBracketBefore(state, state.pos);
  if (open === undefined) {
    env.route = true;
    return false;
  }
  const linkOpen = state.push("link_open", "a", 1);
  linkOpen.attrs = [["href", found.url]];
  linkOpen.info = "literal";
  const text = state.push("text", "", 0);
  text.content = state.src.slice(state.pos, found.end);
  state.push("link_close", "a", -1);
  state.pos = found.end;
  // The literal's characters are no brackets to micromark.
  const scan = bracketScans.get(state);
  if (scan) scan.pos = found.end;
  return true;
}

/** markdown-it's text terminators (its `isTerminatorChar`), as a table by character code. */
const terminators = new Uint8Array(128);
for (const c of [
  0x0a, 0x21, 0x23, 0x24, 0x25, 0x26, 0x2a, 0x2b, 0x2d, 0x3a, 0x3c, 0x3d, 0x3e, 0x40, 0x5b, 0x5c, 0x5d, 0x5e,
  0x5f, 0x60, 0x7b, 0x7d, 0x7e,
])
  terminators[c] = 1;

/**
 * markdown-it's `text` rule, also stopping where a literal may start. After an ASCII letter none
 * can ({@link mayStartLiteral}: `www.` and a protocol need something else before them, an email
 * address anything but atext), so the check is skipped there: this loop runs over nearly every
 * character of a body.
 */
export function textUntilLiteral(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const max = state.posMax;
  let pos = state.pos;
  let afterLetter = true; // at `state.pos` itself no check is made
  while (pos < max) {
    const c = src.charCodeAt(pos);
    if (c < 128 && terminators[c] === 1) break;
    if (!afterLetter && mayStartLiteral(src, pos, max)) break;
    afterLetter = isAsciiAlpha(c);
    pos++;
  }
  if (pos === state.pos) return false;
  if (!silent) state.pending += src.slice(state.pos, pos);
  state.pos = pos;
  return true;
}
