import MarkdownIt, { type Options } from "markdown-it";
import type StateBlock from "markdown-it/lib/rules_block/state_block.mjs";
import type StateInline from "markdown-it/lib/rules_inline/state_inline.mjs";
import type { Delimiter } from "markdown-it/lib/rules_inline/state_inline.mjs";
import type Token from "markdown-it/lib/token.mjs";
import type { Blockquote, Heading, List, ListItem, Parent, PhrasingContent, Root, RootContent } from "mdast";
import { toString as mdastToString } from "mdast-util-to-string";
import {
  autolinkLiteral,
  isSpaceOrEol,
  isUnicodePunctuation,
  isUnicodeWhitespace,
  type LiteralEnv,
  textUntilLiteral,
} from "./autolink-literal.js";

/**
 * The fast Markdown parse: markdown-it's tokens turned into the mdast that micromark (with GFM)
 * gives for the same text, as far as the rest of the pipeline can tell (the editor document and
 * every stored form made from it). The differential test (`markdown-it-to-mdast.test.ts`) compares
 * the two over the CommonMark spec's examples, GFM cases and thousands of generated bodies.
 *
 * What markdown-it cannot be made to read as micromark does is routed to micromark instead:
 * `fastParse` answers `undefined` for it (see {@link needsMicromark} and the checks below).
 */
export function fastParse(markdown: string): Root | undefined {
  if (needsMicromark(markdown)) return undefined;
  const env: ParseEnv = { deep: false };
  const tokens = markdownIt.parse(markdown, env);
  if (env.deep || env.route) return undefined;
  try {
    return blockTokensToMdast(tokens, markdown);
  } catch (error) {
    if (error === routeToMicromark) return undefined;
    throw error;
  }
}

/**
 * Whether a body holds a construct the fast parse does not read as micromark does (see the
 * patterns below); more are found while converting its tokens.
 */
export function needsMicromark(markdown: string): boolean {
  return (
    fallbackPattern.test(markdown) ||
    endsInBlankLine(markdown) ||
    fallbackFence.test(markdown) ||
    fallbackLines.test(markdown) ||
    tableDelimiter.test(markdown) ||
    hasLooseDefinition(markdown) ||
    (containerLine.test(markdown) && htmlAfterLine.test(markdown)) ||
    (quotedThenIndented.test(markdown) && indentedQuoteMarker.test(markdown))
  );
}

/**
 * GFM footnotes (`[^`), task list checks (`[ ]`, `[x]`), line endings other than `\n`, NUL, the
 * line separators U+2028 and U+2029 (which the line-by-line expressions below would take for line
 * ends, as JavaScript's `^` and `$` do, where Markdown does not), a last
 * line of only spaces or tabs (micromark keeps it in a code block left open at the end), more than
 * one HTML comment, and a tab in a line's trailing whitespace (micromark makes no hard break of
 * `\t  `). Line by line: a `~~~` fence with anything after it, a backtick fence ending in a space, a line with a `<` ending with a space
 * or tab or holding other whitespace than those (markdown-it takes any Unicode space
 * where HTML blocks need one, micromark only spaces and tabs), and `][` with no `]` after it on its
 * line (micromark then makes no reference of the `[…]` before it).
 */
// The first two were two expressions of alternatives; split, each is scanned trying fewer
// positions (a line start, or the first character). With the guards on the table and quote checks
// below, needsMicromark takes 9.5 µs on the bench body instead of 17 (bench/README.md § Write path
// › The routing checks). Which bodies match is unchanged but for those with U+2028 or U+2029, which
// now all go to micromark (a property test compares the two).
const fallbackPattern = /\[\^|\[[ \t\r\nxX]\]|[\r\0\u2028\u2029]|<!--[\s\S]*<!--|\t[ \t]*\n/;
const fallbackFence = /^[ \t>]*(?:~{3,}[^\n~]*[^\n~]|`{3,}[^\n]*[ \t]$)/m;
const fallbackLines = /<(?:[^\n]*[^\S\n \t]|[^\n]*[ \t]$)|\]\[[^\]\n]*$/m;

/** Whether the last line is one of spaces or tabs only (`(?:^|\n)[ \t]+$`, read from the end). */
function endsInBlankLine(markdown: string): boolean {
  let index = markdown.length - 1;
  const last = markdown.charCodeAt(index);
  if (last !== 32 && last !== 9) return false;
  while (index >= 0 && (markdown.charCodeAt(index) === 32 || markdown.charCodeAt(index) === 9)) index -= 1;
  return index < 0 || markdown.charCodeAt(index) === 10;
}

/**
 * A line that may be a GFM table's delimiter row (`| - | :-: |`, `---:`): tables go to micromark.
 * After the quote markers and spaces, such a row goes on with `-`, `|` or `:`; the first lookahead
 * says so, and spares scanning every other line for a `-`.
 */
const tableDelimiter = /^[ \t>]*(?=[-|:])(?=[^\n]*-)(?=[^\n]*[|:])[-|: \t]+$/m;

/**
 * A quote's line followed by one indented 4 or more: markdown-it continues the quote with a `>`
 * indented so (CommonMark and micromark do not), and micromark splits indented code after an empty
 * quote line in two.
 */
const indentedQuoteMarker = /^[ \t]*>[^\n]*\n(?: {4}|[ ]{0,3}\t)/m;
/** What every match of {@link indentedQuoteMarker} holds, found without trying each line start. */
const quotedThenIndented = />[^\n]*\n(?: {4}|[ ]{0,3}\t)/;

/**
 * A line starting with `<` right after a non-blank line, in a body with quotes or lists: where
 * markdown-it continues a quote's or list item's paragraph with it (a lazy line), micromark may
 * close the container there instead.
 */
const containerLine = /^[ \t]*(?:>|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$))/m;
const htmlAfterLine = /[^\n]\n[ \t>]*</;

/** A line that may be a link reference definition (`[label]: url`). */
const definitionLine = /^[ \t>]*\[[^\]\n]*\]:/;

/**
 * Whether a link reference definition stands right after or before a line that is neither blank nor
 * another definition: micromark reads a definition as the start of a paragraph, so the lines around
 * it may go differently (an indented line after it is no code block, for one).
 */
function hasLooseDefinition(markdown: string): boolean {
  if (!markdown.includes("]:")) return false;
  const lines = markdown.split("\n");
  return lines.some((line, index) => {
    if (!definitionLine.test(line)) return false;
    const near = [lines[index - 1], lines[index + 1]];
    return near.some(
      (other) => other !== undefined && !/^[ \t>]*$/.test(other) && !definitionLine.test(other),
    );
  });
}

interface ParseEnv extends LiteralEnv {
  /** Set when markdown-it came near its nesting limit, past which it reads text differently. */
  deep: boolean;
}

/** markdown-it stops reading constructs this deep; micromark does not, so such bodies go to it. */
const maxNesting = 400;
const deepLevel = maxNesting - 20;

/** Thrown inside the conversion when the tokens cannot become micromark's tree. */
const routeToMicromark = Symbol("route to micromark");

const markdownIt = makeParser();

function makeParser(): MarkdownIt {
  const md = new MarkdownIt("commonmark", { html: true });
  md.set({ maxNesting } as Options);
  // micromark keeps URLs as written (after escapes and references are decoded) and lets every
  // scheme through; unsafe ones are dropped later, by the pipeline, for both parsers.
  md.validateLink = () => true;
  md.normalizeLink = (url) => url;
  md.normalizeLinkText = (url) => url;
  md.block.ruler.before("table", "quire_deep_block", (state: StateBlock) => {
    if (state.level >= deepLevel) (state.env as ParseEnv).deep = true;
    return false;
  });
  md.inline.ruler.before("autolink", "quire_deep_inline", (state: StateInline) => {
    if (state.level >= deepLevel) (state.env as ParseEnv).deep = true;
    return false;
  });
  const rules = (md.inline.ruler as unknown as { __rules__: Array<{ name: string; fn: InlineRule }> })
    .__rules__;
  md.inline.ruler.before("emphasis", "quire_strikethrough", tokenizeStrikethrough);
  md.inline.ruler.at("text", textUntilLiteral);
  md.inline.ruler.at("emphasis", tokenizeEmphasis);
  const backticks = rules.find((rule) => rule.name === "backticks")!.fn;
  md.inline.ruler.at("backticks", (state, silent) => {
    // markdown-it turns the span's line endings into spaces; micromark keeps them: keep the raw text.
    const start = state.pos;
    const before = state.tokens.length;
    const matched = backticks(state, silent);
    const token = state.tokens.at(-1);
    if (matched && !silent && state.tokens.length > before && token?.type === "code_inline") {
      const marker = token.markup.length;
      token.content = state.src.slice(start + marker, state.pos - marker);
    }
    return matched;
  });
  const escapeRule = rules.find((rule) => rule.name === "escape")!.fn;
  md.inline.ruler.at("escape", (state, silent) => {
    // A backslash before a character it cannot escape is text, and what follows is read on its
    // own (it may start an autolink literal); markdown-it would take both characters at once.
    const next = state.src.charCodeAt(state.pos + 1);
    if (state.src.charCodeAt(state.pos) === 0x5c && next !== 0x0a && !isAsciiPunctuation(next)) return false;
    return escapeRule(state, silent);
  });
  md.inline.ruler.before("text", "quire_autolink_literal", autolinkLiteral);
  const htmlInline = rules.find((rule) => rule.name === "html_inline")!.fn;
  md.inline.ruler.at("html_inline", (state, silent) => {
    const matched = htmlInline(state, silent);
    // After an unclosed comment, `<?`, `<!X` or CDATA, markdown-it reads no more of them in the
    // paragraph (micromark still does): such a body goes to micromark.
    if ((state as StateInline & { skipHtmlSpecial?: boolean }).skipHtmlSpecial) {
      (state.env as ParseEnv).route = true;
    }
    return matched;
  });
  const image = rules.find((rule) => rule.name === "image")!.fn;
  md.inline.ruler.at("image", (state, silent) => {
    const env = state.env as ParseEnv;
    env.inImage = (env.inImage ?? 0) + 1;
    try {
      return image(state, silent);
    } finally {
      env.inImage--;
    }
  });
  md.inline.ruler2.after("balance_pairs", "quire_strikethrough", (state: StateInline) => {
    matchStrikethrough(state, state.delimiters);
    for (const meta of state.tokens_meta) if (meta?.delimiters) matchStrikethrough(state, meta.delimiters);
    return false;
  });
  return md;
}

type InlineRule = (state: StateInline, silent: boolean) => boolean;

/** A `~` run as micromark's GFM strikethrough reads it, with its own open/close flags. */
interface TildeDelimiter extends Delimiter {
  tilde?: { open: boolean; close: boolean; matched: boolean; pair: number };
}

/**
 * GFM strikethrough as micromark reads it: a run of one or two `~` (three or more are text) opens
 * and closes like `*`, and a closer takes the nearest earlier unmatched opener of the same length.
 */
function tokenizeStrikethrough(state: StateInline, silent: boolean): boolean {
  if (silent || state.src.charCodeAt(state.pos) !== 0x7e) return false;
  const scanned = flanking(state, 0x7e, false);
  const token = state.push("text", "", 0);
  token.content = "~".repeat(scanned.length);
  if (scanned.length <= 2) {
    const delimiter: TildeDelimiter = {
      marker: 0x7e,
      length: scanned.length,
      token: state.tokens.length - 1,
      end: -1,
      // Kept out of markdown-it's own pairing (balance_pairs), which follows emphasis rules.
      open: false,
      close: false,
      tilde: { open: scanned.open, close: scanned.close, matched: false, pair: 0 },
    };
    state.delimiters.push(delimiter);
  }
  state.pos += scanned.length;
  return true;
}

/**
 * How micromark classifies the character at `pos` (a UTF-16 code unit, as micromark reads them):
 * 1 whitespace (or either end), 2 punctuation, 0 other.
 */
function classify(src: string, pos: number): 0 | 1 | 2 {
  if (pos < 0 || pos >= src.length) return 1;
  const c = src.charCodeAt(pos);
  if (isSpaceOrEol(c) || isUnicodeWhitespace(c)) return 1;
  return isUnicodePunctuation(c) ? 2 : 0;
}

/** Markers a run of `*` or `_` may open before and close after, as micromark decides (its `attentionMarkers` less `*` and `_`). */
const attentionMarkers = [0x7e];

/** A run of `marker` at `state.pos`: its length and whether it may open and close, as micromark decides. */
function flanking(state: StateInline, marker: number, attention: boolean) {
  const src = state.src;
  let end = state.pos;
  while (end < state.posMax && src.charCodeAt(end) === marker) end++;
  const before = classify(src, state.pos - 1);
  const after = end < state.posMax ? classify(src, end) : 1;
  let open = !after || (after === 2 && Boolean(before));
  let close = !before || (before === 2 && Boolean(after));
  if (attention) {
    const next = end < state.posMax ? src.charCodeAt(end) : -1;
    const previous = state.pos > 0 ? src.charCodeAt(state.pos - 1) : -1;
    const markerOpen = open || attentionMarkers.includes(next);
    const markerClose = close || attentionMarkers.includes(previous);
    open = marker === 0x2a ? markerOpen : markerOpen && (Boolean(before) || !markerClose);
    close = marker === 0x2a ? markerClose : markerClose && (Boolean(after) || !markerOpen);
  }
  return { length: end - state.pos, open, close };
}

/** markdown-it's emphasis tokenizer, deciding whether a run may open or close as micromark does. */
function tokenizeEmphasis(state: StateInline, silent: boolean): boolean {
  const marker = state.src.charCodeAt(state.pos);
  if (silent || (marker !== 0x5f && marker !== 0x2a)) return false;
  const scanned = flanking(state, marker, true);
  // A run that may both open and close meets the "multiple of 3" rule, which markdown-it applies to
  // the runs' first lengths and micromark to what is left of them: such a body goes to micromark.
  if (scanned.open && scanned.close) (state.env as ParseEnv).route = true;
  for (let index = 0; index < scanned.length; index++) {
    const token = state.push("text", "", 0);
    token.content = String.fromCharCode(marker);
    state.delimiters.push({
      marker,
      length: scanned.length,
      token: state.tokens.length - 1,
      end: -1,
      open: scanned.open,
      close: scanned.close,
    });
  }
  state.pos += scanned.length;
  return true;
}

function isAsciiPunctuation(c: number): boolean {
  return (
    (c >= 0x21 && c <= 0x2f) ||
    (c >= 0x3a && c <= 0x40) ||
    (c >= 0x5b && c <= 0x60) ||
    (c >= 0x7b && c <= 0x7e)
  );
}

let pairs = 0;

function matchStrikethrough(state: StateInline, delimiters: Delimiter[]): void {
  for (let index = 0; index < delimiters.length; index++) {
    const closer = (delimiters[index] as TildeDelimiter).tilde;
    if (!closer?.close || closer.matched) continue;
    for (let before = index - 1; before >= 0; before--) {
      const opener = (delimiters[before] as TildeDelimiter).tilde;
      if (!opener?.open || opener.matched) continue;
      if (delimiters[before]!.length !== delimiters[index]!.length) continue;
      opener.matched = closer.matched = true;
      const pair = ++pairs;
      const open = state.tokens[delimiters[before]!.token]!;
      const close = state.tokens[delimiters[index]!.token]!;
      open.type = "s_open";
      open.nesting = 1;
      open.meta = pair;
      close.type = "s_close";
      close.nesting = -1;
      close.meta = pair;
      break;
    }
  }
}

function blockTokensToMdast(tokens: Token[], markdown: string): Root {
  let lines: string[] | undefined;
  const root: Root = { type: "root", children: [] };
  const stack: Parent[] = [root];
  const add = (node: RootContent) => {
    stack.at(-1)!.children.push(node as never);
  };
  const open = (node: Parent & RootContent) => {
    add(node);
    stack.push(node);
  };
  for (const [index, token] of tokens.entries()) {
    switch (token.type) {
      case "paragraph_open":
        open({ type: "paragraph", children: [] });
        break;
      case "heading_open":
        open({ type: "heading", depth: Number(token.tag.slice(1)) as Heading["depth"], children: [] });
        break;
      case "blockquote_open":
        open({ type: "blockquote", children: [] } satisfies Blockquote);
        break;
      case "bullet_list_open":
      case "ordered_list_open": {
        const ordered = token.type === "ordered_list_open";
        const start = ordered ? Number(token.attrGet("start") ?? 1) : null;
        lines ??= markdown.split("\n");
        if (
          tokens[index - 1]?.type === "code_block" ||
          (ordered && tokens[index + 1]?.info !== "1" && token.map && !isBlank(lines[token.map[0] - 1]))
        ) {
          // After indented code (blank lines or not), micromark reads some lists as a paragraph; so
          // it does a list numbered other than `1` (`2.`, `01.`) right after another non-blank line.
          throw routeToMicromark;
        }
        open({ type: "list", ordered, start, spread: false, children: [] } satisfies List);
        break;
      }
      case "list_item_open":
        // micromark reads an empty list item followed by more lines in ways markdown-it does not.
        if (tokens[index + 1]?.type === "list_item_close") throw routeToMicromark;
        open({ type: "listItem", spread: false, checked: null, children: [] } satisfies ListItem);
        break;
      case "paragraph_close":
      case "heading_close":
      case "blockquote_close":
      case "list_item_close":
        stack.pop();
        break;
      case "bullet_list_close":
      case "ordered_list_close": {
        const list = stack.pop() as List;
        list.spread = isLoose(tokens, index);
        for (const item of list.children) item.spread = list.spread;
        break;
      }
      case "inline":
        (stack.at(-1) as Parent).children.push(...(inlineTokensToMdast(token.children ?? []) as never[]));
        break;
      case "fence": {
        lines ??= markdown.split("\n");
        if (!isClosed(token, lines)) throw routeToMicromark;
        // Only spaces and tabs separate and surround the language (JavaScript's trim takes more).
        const info = unescapeAll(token.info).replace(/^[ \t]+|[ \t]+$/g, "");
        const space = info.search(/[ \t]/);
        const lang = space === -1 ? info : info.slice(0, space);
        const meta = space === -1 ? "" : info.slice(space).replace(/^[ \t]+/, "");
        add({
          type: "code",
          lang: lang || null,
          meta: meta || null,
          value: withoutFinalNewline(token.content),
        });
        break;
      }
      case "code_block":
        lines ??= markdown.split("\n");
        if (token.map && hasIndentedBlankAfter(lines, token.map[1])) throw routeToMicromark;
        add({ type: "code", lang: null, meta: null, value: withoutFinalNewline(token.content) });
        break;
      case "hr":
        add({ type: "thematicBreak" });
        break;
      case "html_block":
        add({ type: "html", value: withoutFinalNewline(token.content) });
        break;
      default:
        throw routeToMicromark;
    }
  }
  return root;
}

function isBlank(line: string | undefined): boolean {
  return line === undefined || /^[\s>]*$/.test(line);
}

/** Whether a fenced code block has its closing fence (micromark reads one left open differently). */
function isClosed(fence: Token, lines: string[]): boolean {
  const last = fence.map ? lines[fence.map[1] - 1] : undefined;
  if (last === undefined || fence.map![1] - fence.map![0] < 2) return false;
  const closing = /^[ \t>]*(`{3,}|~{3,})[ \t]*$/.exec(last)?.[1];
  return closing !== undefined && closing[0] === fence.markup[0] && closing.length >= fence.markup.length;
}

/**
 * Whether the blank lines after indented code hold one indented by a tab or 4+ spaces: micromark
 * then keeps the blank lines before it in the code.
 */
function hasIndentedBlankAfter(lines: string[], from: number): boolean {
  for (let index = from; index < lines.length && /^[ \t>]*$/.test(lines[index]!); index++) {
    if (/\t| {4}/.test(lines[index]!)) return true;
  }
  return false;
}

/** markdown-it hides the paragraphs of a tight list; a list is loose when they show. */
function isLoose(tokens: Token[], end: number): boolean {
  const close = tokens[end]!;
  let depth = 0;
  for (let index = end - 1; index >= 0; index--) {
    const token = tokens[index]!;
    if (token.type === "bullet_list_close" || token.type === "ordered_list_close") depth++;
    if (token.type === "bullet_list_open" || token.type === "ordered_list_open") {
      if (depth === 0) return false;
      depth--;
    }
    if (depth === 0 && token.type === "paragraph_open" && token.level === close.level + 2)
      return !token.hidden;
  }
  return false;
}

function inlineTokensToMdast(tokens: Token[]): PhrasingContent[] {
  // A class, not closures made on each call: the reference server runs the source through tsx,
  // whose esbuild keeps function names with a `__name` call for every closure made.
  const phrasing = new PhrasingTree();
  for (const token of tokens) {
    switch (token.type) {
      case "text":
        if (token.content !== "") phrasing.add({ type: "text", value: token.content });
        break;
      case "softbreak": {
        // micromark drops spaces and tabs before a line ending; markdown-it only spaces.
        const last = phrasing.lastChild();
        if (last?.type === "text") last.value = last.value.replace(/[ \t]+$/, "");
        phrasing.add({ type: "text", value: "\n" });
        break;
      }
      case "hardbreak":
        phrasing.add({ type: "break" });
        break;
      case "code_inline":
        phrasing.add({ type: "inlineCode", value: codeSpanValue(token.content) });
        break;
      case "html_inline":
        phrasing.add({ type: "html", value: token.content });
        break;
      case "em_open":
        phrasing.open({ type: "emphasis", children: [] }, token);
        break;
      case "strong_open":
        phrasing.open({ type: "strong", children: [] }, token);
        break;
      case "s_open":
        phrasing.open({ type: "delete", children: [] }, token);
        break;
      case "link_open":
        phrasing.open(
          { type: "link", url: token.attrGet("href") ?? "", title: token.attrGet("title"), children: [] },
          token,
        );
        break;
      case "em_close":
      case "strong_close":
      case "s_close":
      case "link_close":
        phrasing.close(token);
        break;
      case "image": {
        const alt = mdastToString({ type: "paragraph", children: inlineTokensToMdast(token.children ?? []) });
        phrasing.add({ type: "image", url: token.attrGet("src") ?? "", title: token.attrGet("title"), alt });
        break;
      }
      default:
        throw routeToMicromark;
    }
  }
  return phrasing.finish();
}

/** The phrasing nodes of one inline token list, built as its tokens open and close them. */
class PhrasingTree {
  private readonly root: { children: PhrasingContent[] } = { children: [] };
  private readonly stack: OpenPhrasing[] = [{ node: this.root, type: "" }];

  /** Adds a node to the innermost open one, merging text into the text before it. */
  add(node: PhrasingContent): void {
    const children = this.innermost().node.children;
    const last = children.at(-1);
    if (node.type === "text" && last?.type === "text") last.value += node.value;
    else children.push(node);
  }

  open(node: PhrasingContent & { children: PhrasingContent[] }, token: Token): void {
    this.add(node);
    this.stack.push({ node, type: token.type.replace(/_open$/, ""), pair: token.meta });
  }

  /** Closes the innermost node; a close that does not match it goes to micromark. */
  close(token: Token): void {
    const top = this.innermost();
    if (this.stack.length === 1 || `${top.type}_close` !== token.type || top.pair !== token.meta)
      throw routeToMicromark;
    this.stack.pop();
  }

  lastChild(): PhrasingContent | undefined {
    return this.innermost().node.children.at(-1);
  }

  /** The nodes built; any node left open goes to micromark. */
  finish(): PhrasingContent[] {
    if (this.stack.length !== 1) throw routeToMicromark;
    return this.root.children;
  }

  private innermost(): OpenPhrasing {
    return this.stack[this.stack.length - 1] as OpenPhrasing;
  }
}

/** A node open in a {@link PhrasingTree}: its token type without `_open`, and the token's pairing mark. */
interface OpenPhrasing {
  node: { children: PhrasingContent[] };
  type: string;
  pair?: unknown;
}

/**
 * A code span's value as micromark gives it, from its raw text between the backticks (kept so in
 * `content` by the tokenizer): line endings stay, and one space or line ending at each end goes when
 * both ends have one and something else is in it.
 */
function codeSpanValue(value: string): string {
  return /^[ \n]/.test(value) && /[ \n]$/.test(value) && /[^ \n]/.test(value) ? value.slice(1, -1) : value;
}

function withoutFinalNewline(value: string): string {
  return value.endsWith("\n") ? value.slice(0, -1) : value;
}

const unescapeAll: (value: string) => string = markdownIt.utils.unescapeAll;
