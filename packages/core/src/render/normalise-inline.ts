import { type KnownMark, sameMarks } from "./marks.js";

/** Where inline content sits: headings and table cells cannot hold line breaks. */
export type InlineContext = "paragraph" | "heading" | "cell";

/** A piece of inline content with its marks, before the marks are nested into mdast. */
export type InlineItem =
  | { kind: "text"; value: string; marks: KnownMark[] }
  | { kind: "break"; marks: KnownMark[] }
  | { kind: "image"; url: string; alt: string; title: string | null; marks: KnownMark[] };

/** A line ending between two lines of inline content: a hard break, or a newline inside text. */
type LineEnd = Extract<InlineItem, { kind: "break" | "text" }>;

const emphasis: string[] = ["bold", "italic", "strike"];

/**
 * Normalises inline content so that Markdown keeps it as is: whitespace moves out of emphasis, spaces
 * at line edges, blank lines inside text and line breaks at either end go, and neighbouring text
 * with the same marks is joined. In headings and cells, line breaks become spaces.
 */
export function normaliseInline(items: InlineItem[], context: InlineContext): InlineItem[] {
  return isNormal(items) ? items : normaliseInlineFully(items, context);
}

/** {@link normaliseInline} without its shortcut: the reference the shortcut must match. */
export function normaliseInlineFully(items: InlineItem[], context: InlineContext): InlineItem[] {
  return mergeText(normaliseLines(items.flatMap(expelWhitespace), context));
}

/**
 * Whether normalising would give the items back unchanged: one line (no break, no newline), no
 * whitespace at the edges of emphasis or of the line, no empty text, no neighbouring texts with the
 * same marks. Most inline content is so (every textblock of a body parsed from Markdown), and the
 * full pass, which copies every item several times, was a third of `docToMdast` on bench:write.
 */
function isNormal(items: InlineItem[]): boolean {
  let previous: InlineItem | undefined;
  for (const item of items) {
    if (item.kind === "break") return false;
    if (item.kind === "text") {
      const { value } = item;
      if (value === "" || value.includes("\n")) return false;
      if (previous?.kind === "text" && sameMarks(previous.marks, item.marks)) return false;
      if (item.marks.some(isEmphasis) && !item.marks.some(isCode) && /^\s|\s$/.test(value)) return false;
    }
    previous = item;
  }
  const first = items[0];
  const last = items.at(-1);
  if (first?.kind === "text" && /^[ \t]/.test(first.value)) return false;
  if (last?.kind === "text" && /[ \t]$/.test(last.value)) return false;
  return true;
}

function isEmphasis(mark: KnownMark): boolean {
  return emphasis.includes(mark.type);
}

function isCode(mark: KnownMark): boolean {
  return mark.type === "code";
}

/** Emphasis cannot start or end with whitespace in Markdown, so `** a **` becomes ` **a** `. */
function expelWhitespace(item: InlineItem): InlineItem[] {
  if (item.kind !== "text" || !item.marks.some((mark) => emphasis.includes(mark.type))) return [item];
  if (item.marks.some((mark) => mark.type === "code")) return [item];
  const [, before = "", inner = "", after = ""] = /^(\s*)(.*?)(\s*)$/s.exec(item.value) ?? [];
  const outside = item.marks.filter((mark) => !emphasis.includes(mark.type));
  return [
    { kind: "text", value: before, marks: outside },
    { ...item, value: inner },
    { kind: "text", value: after, marks: outside },
  ];
}

/**
 * Splits the items into lines at hard breaks and newlines, trims spaces and tabs at each line's
 * edges (Markdown drops them), drops blank lines a newline would turn into a paragraph break and any
 * line ending at either end, and joins the lines again; in headings and cells, with spaces.
 */
function normaliseLines(items: InlineItem[], context: InlineContext): InlineItem[] {
  const lines: InlineItem[][] = [[]];
  const ends: LineEnd[] = [];
  for (const item of items) {
    if (item.kind === "break") {
      ends.push(item);
      lines.push([]);
    } else if (item.kind === "text" && item.value.includes("\n")) {
      item.value.split("\n").forEach((value, index) => {
        if (index > 0) {
          ends.push({ kind: "text", value: "\n", marks: item.marks });
          lines.push([]);
        }
        lines.at(-1)!.push({ ...item, value });
      });
    } else {
      lines.at(-1)!.push(item);
    }
  }
  const trimmed = lines.map(trimLine);
  dropEmptyLines(trimmed, ends, context);
  return trimmed.flatMap((line, index) => {
    const end = ends[index];
    if (!end) return line;
    return [...line, context === "paragraph" ? end : { kind: "text", value: " ", marks: end.marks }];
  });
}

function trimLine(line: InlineItem[]): InlineItem[] {
  const items = line.filter((item) => item.kind !== "text" || item.value !== "");
  for (let first = items[0]; first?.kind === "text"; first = items[0]) {
    const value = first.value.replace(/^[ \t]+/, "");
    if (value !== "") {
      items[0] = { ...first, value };
      break;
    }
    items.shift();
  }
  for (let last = items.at(-1); last?.kind === "text"; last = items.at(-1)) {
    const value = last.value.replace(/[ \t]+$/, "");
    if (value !== "") {
      items[items.length - 1] = { ...last, value };
      break;
    }
    items.pop();
  }
  return items;
}

/** Only a blank line between two hard breaks survives Markdown; others would end the paragraph. */
function dropEmptyLines(lines: InlineItem[][], ends: LineEnd[], context: InlineContext): void {
  while (lines.length > 1 && lines[0]!.length === 0) {
    lines.shift();
    ends.shift();
  }
  while (lines.length > 1 && lines.at(-1)!.length === 0) {
    lines.pop();
    ends.pop();
  }
  for (let index = 1; index < lines.length - 1; ) {
    const before = ends[index - 1]!;
    const after = ends[index]!;
    const keep = context === "paragraph" && before.kind === "break" && after.kind === "break";
    if (lines[index]!.length > 0 || keep) {
      index++;
      continue;
    }
    lines.splice(index, 1);
    ends.splice(before.kind === "text" || context !== "paragraph" ? index - 1 : index, 1);
  }
}

function mergeText(items: InlineItem[]): InlineItem[] {
  const merged: InlineItem[] = [];
  for (const item of items) {
    const last = merged.at(-1);
    if (last?.kind === "text" && item.kind === "text" && sameMarks(last.marks, item.marks)) {
      merged[merged.length - 1] = { ...last, value: last.value + item.value };
    } else if (item.kind !== "text" || item.value !== "") {
      merged.push(item);
    }
  }
  return merged;
}
