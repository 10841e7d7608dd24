import type {
  Blockquote,
  Code,
  Heading,
  Image,
  InlineCode,
  Link,
  List,
  ListItem,
  Nodes,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from "mdast";
import {
  type AttentionItem,
  encodeCharacterReference,
  firstCharacter,
  lastCharacter,
  type PhrasingItem,
  serialize,
} from "./markdown-attention.js";
import { readMoreComment } from "./read-more.js";

/**
 * A Markdown writer for the trees `docToMdast` makes, writing exactly what mdast-util-to-markdown
 * writes with the options of `to-markdown.ts` — or nothing (`undefined`) when the tree holds
 * something it does not handle, and the library writes it instead.
 *
 * Why it exists: on the 1.5 KB body of bench:write the library took 0.39 ms per body, half of the
 * render after the parse; its `safe` (every unsafe pattern, as a regular expression, over every text)
 * was the top self-time function of the whole `posts.create`. This writer takes about 0.03 ms.
 *
 * How it stays exact: it follows the library's handlers (same joins between blocks, bullets, fences,
 * indentation, autolinks, and the same choice of emphasis markers, ported in `markdown-attention.ts`),
 * and it never escapes: text, URLs and titles in which any of the library's unsafe patterns could
 * match are not written here but handed back (the library then escapes them). Raw HTML and other
 * node types are handed back too. `render-differential.test.ts` compares both writers byte for byte
 * over thousands of documents.
 */
export function writeMarkdown(tree: Root): string | undefined {
  const writer = new Writer();
  try {
    if (tree.children.some(isPhrasing)) return undefined;
    const result = writer.flow(tree.children, tree);
    return result && !result.endsWith("\n") && !result.endsWith("\r") ? `${result}\n` : result;
  } catch {
    // Handed back, or anything unforeseen: the library writes the tree (and throws if it is unwritable).
    return undefined;
  }
}

/** Thrown (and caught in {@link writeMarkdown}) when the library must write the tree. */
const handBack = new Error("the library writes this tree");

/** Where phrasing sits, as far as the library's unsafe patterns care. */
interface Scope {
  heading: boolean;
  /** Inside a link's text or an image's alt (the library's `label` construct). */
  label: boolean;
  /** Inside a table cell (GFM's `tableCell` construct). */
  cell: boolean;
}

type FlowParent = Root | ListItem | List | Blockquote;

class Writer {
  /** The library's `state.bulletLastUsed` and `state.bulletCurrent`. */
  private bulletLastUsed: string | undefined;
  private bulletCurrent: string | undefined;

  flow(children: RootContent[], parent: FlowParent): string {
    let result = "";
    for (let index = 0; index < children.length; index++) {
      const child = children[index]!;
      result += this.block(child);
      if (child.type !== "list") this.bulletLastUsed = undefined;
      if (index < children.length - 1) result += between(child, children[index + 1]!, parent);
    }
    return result;
  }

  private block(node: RootContent): string {
    switch (node.type) {
      case "paragraph":
        return this.phrasing(node.children, "\n", "\n", { heading: false, label: false, cell: false });
      case "heading":
        return this.heading(node);
      case "blockquote":
        return indentLines(this.flow(node.children, node), (line, _, blank) => `>${blank ? "" : " "}${line}`);
      case "list":
        return this.list(node);
      case "code":
        return code(node);
      case "thematicBreak":
        return "---";
      case "readMore":
        return readMoreComment;
      case "table":
        return this.table(node);
      default:
        throw handBack;
    }
  }

  private heading(node: Heading): string {
    const rank = Math.max(Math.min(6, node.depth || 1), 1);
    // A break or a line ending would make the library write a setext heading (depth 1–2) or escape.
    if (containsLineEnding(node)) throw handBack;
    const sequence = "#".repeat(rank);
    let value = this.phrasing(node.children, "# ", "\n", { heading: true, label: false, cell: false });
    const head = value.charCodeAt(0);
    if (head === 9 || head === 32) value = encodeCharacterReference(head) + value.slice(1);
    return value ? `${sequence} ${value}` : sequence;
  }

  /** GFM's table handler: each cell's phrasing between `|`s, then markdown-table's layout. */
  private table(node: Table): string {
    const scope: Scope = { heading: false, label: false, cell: true };
    const matrix = node.children.map((row) =>
      row.children.map((cell) => this.phrasing(cell.children, "|", "|", scope)),
    );
    const head = matrix[0];
    if (head) {
      let columns = node.align ? node.align.length : 0;
      if (!columns) for (const row of matrix) columns = Math.max(columns, row.length);
      while (head.length < columns) head.push("");
    }
    return markdownTable(matrix, node.align ?? []);
  }

  private list(node: List): string {
    let bullet = node.ordered ? "." : "-";
    const bulletOther = node.ordered ? ")" : "*";
    let useDifferentMarker = this.bulletLastUsed ? bullet === this.bulletLastUsed : false;
    if (!node.ordered) {
      const first = node.children[0];
      // The library looks at its construct stack for an empty first item; rare, so handed back.
      if (first && first.children.length === 0) throw handBack;
      if (first && node.children.some((item) => item.children[0]?.type === "thematicBreak")) {
        useDifferentMarker = true;
      }
    }
    if (useDifferentMarker) bullet = bulletOther;
    const bulletCurrent = this.bulletCurrent;
    this.bulletCurrent = bullet;
    let result = "";
    for (let index = 0; index < node.children.length; index++) {
      const item = node.children[index]!;
      result += this.listItem(item, node, index);
      this.bulletLastUsed = undefined;
      if (index < node.children.length - 1) result += between(item, node.children[index + 1]!, node);
    }
    this.bulletLastUsed = bullet;
    this.bulletCurrent = bulletCurrent;
    return result;
  }

  private listItem(node: ListItem, parent: List, index: number): string {
    // A task list item (from parsed Markdown; documents have none) gets GFM's checkbox there.
    if (typeof node.checked === "boolean") throw handBack;
    let bullet = this.bulletCurrent ?? "-";
    if (parent.ordered) {
      bullet = `${(typeof parent.start === "number" && parent.start > -1 ? parent.start : 1) + index}${bullet}`;
    }
    const size = bullet.length + 1;
    const indent = " ".repeat(size);
    return indentLines(this.flow(node.children, node), (line, lineIndex, blank) => {
      if (lineIndex) return (blank ? "" : indent) + line;
      return (blank ? bullet : `${bullet} `) + line;
    });
  }

  /** The library's `containerPhrasing`: each child written, then attention sequences chosen. */
  private phrasing(children: PhrasingContent[], before: string, after: string, scope: Scope): string {
    return serialize(this.phrasingItems(children, before, after, scope), before, after);
  }

  private phrasingItems(
    children: PhrasingContent[],
    infoBefore: string,
    infoAfter: string,
    scope: Scope,
  ): PhrasingItem[] {
    const results: PhrasingItem[] = [];
    let before = infoBefore;
    for (let index = 0; index < children.length; index++) {
      const child = children[index]!;
      const next = children[index + 1];
      const after = next ? firstCharacter(this.peek(next, scope)) : infoAfter;
      const attention = attentionSequences(child);
      if (attention) {
        const sequence = attention[0]!;
        const inner = this.phrasingItems(
          (child as { children: PhrasingContent[] }).children,
          sequence,
          sequence,
          scope,
        );
        if (inner.length === 0) continue;
        results.push({ children: inner, sequences: attention } satisfies AttentionItem);
        before = lastCharacter(sequence);
        continue;
      }
      const value = this.inline(child, before, after, scope);
      if (!value) continue;
      results.push(value);
      before = lastCharacter(value);
    }
    return results;
  }

  /** What the library's `peek` (or, for text, the whole handler) gives for the next sibling. */
  private peek(node: PhrasingContent, scope: Scope): string {
    switch (node.type) {
      case "emphasis":
      case "strong":
        return "*";
      case "delete":
        return "~";
      case "inlineCode":
        return "`";
      case "link":
        return isAutolink(node) ? "<" : "[";
      case "image":
        return "!";
      case "text":
        // The text as written (safeText never changes it), not checked a second time: it is
        // checked when it is written, with what really stands around it.
        return node.value;
      default:
        return this.inline(node, "", "", scope);
    }
  }

  private inline(node: PhrasingContent, before: string, after: string, scope: Scope): string {
    switch (node.type) {
      case "text":
        return safeText(node.value, before, after, scope);
      case "inlineCode":
        // In a cell, GFM escapes the code's pipes.
        if (scope.cell && node.value.includes("|")) throw handBack;
        return inlineCode(node);
      case "break":
        if (scope.heading || scope.cell) throw handBack;
        return "\\\n";
      case "link":
        return this.link(node, before, scope);
      case "image":
        return image(node, scope);
      default:
        throw handBack;
    }
  }

  private link(node: Link, before: string, scope: Scope): string {
    if (isAutolink(node)) {
      // The text is the URL (or the address of a `mailto:` URL), which holds no character an
      // autolink would percent-encode.
      return `<${(node.children[0] as { value: string }).value}>`;
    }
    const text = this.phrasing(node.children, "[", "](", { ...scope, label: true });
    const last = before.charAt(before.length - 1);
    let title: string | undefined = node.title || undefined;
    const enclose = /[\0- \u007F]/.test(node.url);
    if (!title && !enclose && (last === "\n" || last === "\r")) {
      let index = 0;
      while (index < text.length && text.charCodeAt(index) !== 93) {
        index += text.charCodeAt(index) === 92 ? 2 : 1;
      }
      if (text.charCodeAt(index + 1) === 58) title = "";
    }
    if ((!node.url && typeof title === "string") || enclose) throw handBack;
    let value = `[${text}](${safeDestination(node.url)}`;
    if (typeof title === "string") value += ` "${safeTitle(title)}"`;
    return `${value})`;
  }
}

function image(node: Image, scope: Scope): string {
  const alt = safeText(node.alt ?? "", "![", "]", { ...scope, label: true });
  if ((!node.url && node.title) || /[\0- \u007F]/.test(node.url)) throw handBack;
  let value = `![${alt}](${safeDestination(node.url)}`;
  if (node.title) value += ` "${safeTitle(node.title)}"`;
  return `${value})`;
}

function code(node: Code): string {
  const raw = node.value || "";
  const sequence = "`".repeat(Math.max(longestStreak(raw, "`") + 1, 3));
  let value = sequence;
  if (node.lang) {
    // Characters no unsafe pattern of an info string concerns; anything else is handed back.
    if (!/^[\w+.#-]+$/.test(node.lang)) throw handBack;
    value += node.lang;
    if (node.meta) throw handBack;
  }
  value += "\n";
  if (raw) value += `${raw}\n`;
  return value + sequence;
}

function inlineCode(node: InlineCode): string {
  let value = node.value || "";
  // A line ending in code would meet the library's at-break patterns; docToMdast writes none.
  if (/[\r\n]/.test(value)) throw handBack;
  let sequence = "`";
  while (new RegExp(`(^|[^\`])${sequence}([^\`]|$)`).test(value)) sequence += "`";
  if (/[^\n\r ]/.test(value) && ((/^[\n\r ]/.test(value) && /[\n\r ]$/.test(value)) || /^`|`$/.test(value))) {
    value = ` ${value} `;
  }
  return sequence + value + sequence;
}

function attentionSequences(node: PhrasingContent): string[] | undefined {
  switch (node.type) {
    case "emphasis":
      return ["*", "_"];
    case "strong":
      return ["**", "__"];
    case "delete":
      return ["~~", "~"];
    default:
      return undefined;
  }
}

/** The library's `formatLinkAsAutolink` with `resourceLink` off. */
function isAutolink(node: Link): boolean {
  const only = node.children.length === 1 ? node.children[0] : undefined;
  if (!node.url || node.title || only?.type !== "text") return false;
  const raw = only.value;
  return (
    (raw === node.url || `mailto:${raw}` === node.url) &&
    /^[a-z][+\-.a-z]+:/i.test(node.url) &&
    !/[\0- <>\u007F]/.test(node.url)
  );
}

/**
 * Text as the library's `safe` writes it in phrasing when it escapes nothing; hands back when any
 * unsafe pattern could match a character of `value` (with `before` and `after` around it, as there).
 * The characters below never match one; those checked in {@link mayBeUnsafe} match only in context.
 */
function safeText(value: string, before: string, after: string, scope: Scope): string {
  let whole: Around | undefined;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (isPlain(code)) continue;
    whole ??= { value, before, after };
    if (mayBeUnsafe(whole, index, code, scope)) throw handBack;
  }
  return value;
}

/**
 * A text with what the library writes around it: the patterns see `before + value + after`. Read
 * through {@link charAt} rather than joined: joining made a string V8 flattened on its first read,
 * for every text of a body.
 */
interface Around {
  value: string;
  before: string;
  after: string;
}

/** The character at `index` of `before + value + after`, counted from `value`'s start; "" past either end. */
function charAt(text: Around, index: number): string {
  if (index < 0) return index < -text.before.length ? "" : text.before.charAt(text.before.length + index);
  if (index < text.value.length) return text.value.charAt(index);
  return text.after.charAt(index - text.value.length);
}

/** Letters, digits and punctuation no pattern (in phrasing) ever concerns. */
function isPlain(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 44 || // ,
    code === 59 || // ;
    code === 63 || // ?
    code === 39 || // '
    code === 34 || // "
    code === 37 || // %
    code === 36 || // $
    code === 94 || // ^
    code === 123 || // {
    code === 125 || // }
    code === 47 || // /
    code >= 0xa0
  );
}

/**
 * Whether one of the library's unsafe patterns (core and GFM) could match the character at
 * `index` of `whole.value`: true errs on the safe side (the library then writes the tree).
 */
function mayBeUnsafe(whole: Around, index: number, code: number, scope: Scope): boolean {
  const previous = charAt(whole, index - 1);
  const next = charAt(whole, index + 1);
  switch (code) {
    case 32: // space: next to a line ending
      return isLineEnding(previous) || isLineEnding(next);
    case 10: // line feed: in a heading or cell, or next to another line ending
      return scope.heading || scope.cell || previous === "\n" || isLineEnding(next);
    case 35: // #: at a line's start, or ending an ATX heading
      return atBreak(whole, index) || (scope.heading && (next === "" || isLineEnding(next)));
    case 45: // -
    case 43: // +
      return atBreak(whole, index);
    case 46: // .: after digits (an ordered list item), or an autolink literal's `www.`
      return isDigit(previous) || ((previous === "W" || previous === "w") && /[-.\w]/.test(next));
    case 58: // :: `http://`-like, or a table delimiter at a line's start
      return ((previous === "p" || previous === "s") && next === "/") || atBreak(whole, index);
    case 64: // @: an autolink literal e-mail address
      return /[+\-.\w]/.test(previous) && /[-.\w]/.test(next);
    case 40: // (: after `]`
      return previous === "]";
    case 41: // ): after digits (an ordered list item)
      return isDigit(previous);
    case 33: // !: before `[` (an image)
      return next === "[";
    case 38: // &: before what could make a character reference
      return /[#A-Za-z]/.test(next);
    case 60: // <: before what could make HTML or an autolink
      return /[!/?A-Za-z]/.test(next);
    case 61: // =: a setext underline
    case 62: // >: a block quote
    case 124: // |: a table row, or a cell's end
      return scope.cell || atBreak(whole, index);
    case 93: // ]: ends a link's text
      return scope.label;
    default:
      // Tab, CR, other controls, `*[\_\`~`: handed back.
      return true;
  }
}

/** Whether a line ending (and spaces or tabs) comes right before `index`: the patterns' `atBreak`. */
function atBreak(whole: Around, index: number): boolean {
  let position = index - 1;
  for (let c = charAt(whole, position); c === " " || c === "\t"; c = charAt(whole, position)) position--;
  return isLineEnding(charAt(whole, position));
}

function isLineEnding(character: string): boolean {
  return character === "\n" || character === "\r";
}

function isDigit(character: string): boolean {
  return character >= "0" && character <= "9" && character !== "";
}

/** A link or image destination written raw; one with a character the library would escape is handed back. */
function safeDestination(url: string): string {
  // `[` too: GFM footnotes' pattern for it holds anywhere in phrasing, links included; `]`, unsafe
  // when an image sits in a link's text; `|`, unsafe anywhere in a table cell.
  if (/[&()[\\\]|]/.test(url)) throw handBack;
  return url;
}

/** A title in double quotes; one with a character the library would escape is handed back. */
function safeTitle(title: string): string {
  if (/["&[\\\]|\r\n\t]/.test(title)) throw handBack;
  return title;
}

function containsLineEnding(node: Nodes): boolean {
  if (node.type === "break") return true;
  if (node.type === "text") return /[\r\n]/.test(node.value);
  return "children" in node && node.children.some(containsLineEnding);
}

/** The library's default join, with the GFM table join, for the node types written here. */
function between(left: RootContent, right: RootContent, parent: FlowParent): string {
  // GFM's table join, consulted first: text right after a table in a tight item would join it.
  if (
    left.type === "table" &&
    parent.type === "listItem" &&
    parent.spread === false &&
    (right.type === "paragraph" || right.type === "table")
  ) {
    return "\n\n";
  }
  if (!("spread" in parent) || typeof parent.spread !== "boolean") return "\n\n";
  if (parent.spread) return "\n\n";
  if (left.type === "blockquote" && right.type === "blockquote") return "\n\n";
  if (
    left.type === "paragraph" &&
    right.type === "list" &&
    ((right.ordered && typeof right.start === "number" && right.start !== 1) ||
      (right.children.length > 0 && right.children[0]!.children.length === 0))
  ) {
    return "\n\n";
  }
  if (left.type === "paragraph" && right.type === "thematicBreak") return "\n\n";
  let tail: Nodes = left;
  while (
    (tail.type === "blockquote" || tail.type === "list" || tail.type === "listItem") &&
    tail.children.length > 0
  ) {
    tail = tail.children[tail.children.length - 1]!;
  }
  if (tail.type !== "paragraph") return "\n";
  // Headings are never setext here (see `heading`).
  if ((left.type === "paragraph" || (left as Nodes) !== tail) && right.type === "paragraph") return "\n\n";
  return "\n";
}

/**
 * markdown-table (as GFM's table handler calls it: padded cells, aligned delimiters, rows not
 * filled), for rows of already written cells; lengths in UTF-16 code units, as there.
 */
function markdownTable(table: string[][], align: ReadonlyArray<string | null | undefined>): string {
  const longest: number[] = [];
  let mostCells = 0;
  for (const row of table) {
    mostCells = Math.max(mostCells, row.length);
    row.forEach((cell, column) => {
      if (longest[column] === undefined || cell.length > longest[column]!) longest[column] = cell.length;
    });
  }
  const alignments: string[] = [];
  const delimiters: string[] = [];
  const delimiterSizes: number[] = [];
  for (let column = 0; column < mostCells; column++) {
    const code = toAlignment(align[column]);
    alignments[column] = code;
    const before = code === "c" || code === "l" ? ":" : "";
    const after = code === "c" || code === "r" ? ":" : "";
    const dashes = Math.max(1, longest[column]! - before.length - after.length);
    delimiters[column] = before + "-".repeat(dashes) + after;
    const size = before.length + dashes + after.length;
    if (size > longest[column]!) longest[column] = size;
    delimiterSizes[column] = size;
  }
  const rows = [table[0]!, delimiters, ...table.slice(1)];
  const lines: string[] = [];
  rows.forEach((row, rowIndex) => {
    const cellsInRow = Math.max(1, rows[rowIndex === 1 ? 0 : rowIndex]!.length);
    let line = "";
    for (let column = 0; column < cellsInRow; column++) {
      const cell = row[column] ?? "";
      const size = longest[column]! - (rowIndex === 1 ? delimiterSizes[column]! : cell.length);
      const code = alignments[column];
      let before = "";
      let after = "";
      if (code === "r") before = " ".repeat(size);
      else if (code === "c") {
        before = " ".repeat(Math.ceil(size / 2));
        after = " ".repeat(Math.floor(size / 2));
      } else after = " ".repeat(size);
      if (!column) line += "|";
      line += ` ${before}${cell}${after} |`;
    }
    lines.push(line);
  });
  return lines.join("\n");
}

function toAlignment(value: string | null | undefined): string {
  const code = typeof value === "string" ? value.charAt(0).toLowerCase() : "";
  return code === "c" || code === "l" || code === "r" ? code : "";
}

function indentLines(value: string, map: (line: string, index: number, blank: boolean) => string): string {
  const eol = /\r?\n|\r/g;
  let result = "";
  let start = 0;
  let line = 0;
  for (let match = eol.exec(value); match; match = eol.exec(value)) {
    const text = value.slice(start, match.index);
    result += map(text, line, !text) + match[0];
    start = match.index + match[0].length;
    line++;
  }
  const text = value.slice(start);
  return result + map(text, line, !text);
}

function longestStreak(value: string, substring: string): number {
  let index = value.indexOf(substring);
  let expected = index;
  let count = 0;
  let max = 0;
  while (index !== -1) {
    if (index === expected) {
      if (++count > max) max = count;
    } else {
      count = 1;
    }
    expected = index + substring.length;
    index = value.indexOf(substring, expected);
  }
  return max;
}

function isPhrasing(node: RootContent): boolean {
  switch (node.type) {
    case "text":
    case "emphasis":
    case "strong":
    case "delete":
    case "inlineCode":
    case "link":
    case "image":
    case "break":
    case "html":
    case "linkReference":
    case "imageReference":
    case "footnoteReference":
      return true;
    default:
      return false;
  }
}
