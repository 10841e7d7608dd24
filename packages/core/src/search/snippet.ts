import { foldWithOffsets, type SearchableFields, searchedFields } from "./search-text.js";

/** About how many characters of text a snippet shows around its first hit. */
const snippetLength = 160;
/** How much of the window comes before the first hit. */
const leadIn = 40;

/**
 * The snippet of a search result, built from the stored post text (never from the index, so both
 * databases give the same one): the first searched field with a hit, cut to about 160 characters
 * around its first hit, HTML-escaped, with every hit in the window wrapped in `<mark>`. A post
 * whose hits are all in fields that are not shown (none) starts at the beginning of its body.
 */
export function buildSnippet(post: SearchableFields, terms: readonly string[]): string {
  for (const field of searchedFields) {
    const text = post[field];
    if (!text) continue;
    const hits = findHits(text, terms);
    if (hits.length > 0) return renderWindow(text, hits);
  }
  const first = searchedFields.map((field) => post[field]).find((text) => text);
  return first ? renderWindow(first, []) : "";
}

type Range = [start: number, end: number];

/** Every occurrence of every term in a text, as merged ranges of the original text. */
function findHits(text: string, terms: readonly string[]): Range[] {
  const { folded, offsets } = foldWithOffsets(text);
  const ranges: Range[] = [];
  for (const term of terms) {
    let at = folded.indexOf(term);
    while (at !== -1) {
      ranges.push([offsets[at] as number, offsetAfter(offsets, at + term.length)]);
      at = folded.indexOf(term, at + term.length);
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Range[] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([...range]);
  }
  return merged;
}

/** The original position just past the code point that folded position `end - 1` came from. */
function offsetAfter(offsets: number[], end: number): number {
  const start = offsets[end - 1] as number;
  let next = end;
  while (next < offsets.length - 1 && offsets[next] === start) next++;
  return offsets[next] as number;
}

function renderWindow(text: string, hits: Range[]): string {
  const firstHit = hits[0]?.[0] ?? 0;
  let start = Math.max(0, firstHit - leadIn);
  let end = Math.min(text.length, start + snippetLength);
  start = Math.max(0, Math.min(start, end - snippetLength));
  // Never cut a surrogate pair in half.
  if (isLowSurrogate(text.charCodeAt(start))) start--;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
  let out = start > 0 ? "…" : "";
  let at = start;
  for (const [hitStart, hitEnd] of hits) {
    if (hitEnd <= start) continue;
    if (hitStart >= end) break;
    const from = Math.max(hitStart, start);
    const to = Math.min(hitEnd, end);
    out += escapeHtml(text.slice(at, from));
    out += `<mark>${escapeHtml(text.slice(from, to))}</mark>`;
    at = to;
  }
  out += escapeHtml(text.slice(at, end));
  if (end < text.length) out += "…";
  return out.replace(/\s+/gu, " ").trim();
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Escapes the five characters that could start markup or end an attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => htmlEntities[char] as string);
}

const htmlEntities: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
