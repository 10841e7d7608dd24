import type { DocMark } from "./editor-doc.js";
import { isSafeUrl } from "./safe-url.js";

/** The marks the renderer knows, outermost first: the order they nest in mdast and appear in `body`. */
const markOrder = ["link", "bold", "italic", "strike", "code"] as const;

/** A mark the renderer knows. */
export type KnownMark =
  | { type: "link"; href: string; title: string | null }
  | { type: "bold" | "italic" | "strike" | "code" };

/** Reads a node's marks: unknown ones and links to unsafe URLs go, the rest are deduplicated and ordered. */
export function readMarks(marks: DocMark[] | undefined): KnownMark[] {
  const known: KnownMark[] = [];
  for (const mark of marks ?? []) {
    const read = readMark(mark);
    if (read && !known.some((other) => other.type === read.type)) known.push(read);
  }
  return sortMarks(known);
}

/** Sorts marks outermost first. */
export function sortMarks(marks: KnownMark[]): KnownMark[] {
  return [...marks].sort((a, b) => markOrder.indexOf(a.type) - markOrder.indexOf(b.type));
}

/** Whether two marks are the same mark with the same attributes. */
export function sameMark(a: KnownMark, b: KnownMark): boolean {
  if (a.type === "link" && b.type === "link") return a.href === b.href && a.title === b.title;
  return a.type === b.type;
}

/** Whether two mark lists (as returned by {@link readMarks}) are equal. */
export function sameMarks(a: KnownMark[], b: KnownMark[]): boolean {
  return a.length === b.length && a.every((mark, index) => sameMark(mark, b[index]!));
}

/** Writes a mark in the editor's JSON shape. */
export function toDocMark(mark: KnownMark): DocMark {
  if (mark.type !== "link") return { type: mark.type };
  return { type: "link", attrs: mark.title ? { href: mark.href, title: mark.title } : { href: mark.href } };
}

function readMark(mark: DocMark): KnownMark | undefined {
  switch (mark.type) {
    case "bold":
    case "italic":
    case "strike":
    case "code":
      return { type: mark.type };
    case "link": {
      const href = mark.attrs?.href;
      const title = mark.attrs?.title;
      if (typeof href !== "string" || !isSafeUrl(href, "href")) return undefined;
      return { type: "link", href, title: typeof title === "string" && title !== "" ? title : null };
    }
    default:
      return undefined;
  }
}
