/**
 * The text both databases search, and the one folding both queries and stored text go through, so
 * SQLite and PostgreSQL compare the same characters and agree on which posts match.
 * @see docs/search.md § Matching
 */

/** The post fields that are searched, in the order they are joined. */
export interface SearchableFields {
  title: string | null;
  source_name: string | null;
  quote_text: string | null;
  body_text: string | null;
  summary: string | null;
  url: string | null;
  source_url: string | null;
}

/** The searched fields, in order: the snippet is taken from the first of them with a hit. */
export const searchedFields = [
  "body_text",
  "quote_text",
  "summary",
  "title",
  "source_name",
  "url",
  "source_url",
] as const satisfies readonly (keyof SearchableFields)[];

/** Terms shorter than this (in code points, after folding) cannot use a trigram index. */
export const trigramLength = 3;

// Combining diacritical marks (U+0300–U+036F): accents on Latin, Greek and Cyrillic letters.
// Marks of other scripts (kana voicing, Indic vowel signs) are letters' essential parts; kept.
const diacritic = /[\u0300-\u036f]/g;
const asciiOnly = /^\p{ASCII}*$/u;

/**
 * Folds one code point: compatibility forms to plain ones (full-width Latin, ligatures),
 * lowercase, accents removed. Applied one code point at a time, so a text's folded form is the
 * concatenation of its code points' folded forms (the snippet maps hits back through this).
 */
function foldCodePoint(char: string): string {
  const folded = char.normalize("NFKD").toLowerCase().replace(diacritic, "").normalize("NFC");
  return folded === "ς" ? "σ" : folded;
}

/** The folded form of a text: what is stored for searching and what queries are compared with. */
export function foldText(text: string): string {
  if (asciiOnly.test(text)) return text.toLowerCase();
  let out = "";
  for (const char of text) out += foldCodePoint(char);
  return out;
}

/**
 * The folded text with, for each UTF-16 position of it, the UTF-16 position in the original text
 * of the code point it came from (plus one entry for the end), so a hit found in the folded text
 * can be marked in the original.
 */
export function foldWithOffsets(text: string): { folded: string; offsets: number[] } {
  if (asciiOnly.test(text)) {
    return { folded: text.toLowerCase(), offsets: Array.from({ length: text.length + 1 }, (_, i) => i) };
  }
  let folded = "";
  const offsets: number[] = [];
  let position = 0;
  for (const char of text) {
    const piece = asciiOnly.test(char) ? char.toLowerCase() : foldCodePoint(char);
    for (let i = 0; i < piece.length; i++) offsets.push(position);
    folded += piece;
    position += char.length;
  }
  offsets.push(position);
  return { folded, offsets };
}

/** The stored search text of a post: its searched fields, folded, one per line. */
export function searchTextOf(post: SearchableFields): string {
  return searchedFields
    .map((field) => post[field])
    .filter((value): value is string => value !== null && value !== "")
    .map(foldText)
    .join("\n");
}

/**
 * The terms of a query: folded, split on white space, duplicates dropped. Every term must occur in
 * a post (as a substring of its search text) for the post to match.
 */
export function queryTerms(q: string): string[] {
  return [
    ...new Set(
      foldText(q)
        .split(/\s+/u)
        .filter((term) => term !== ""),
    ),
  ];
}

/** True when a term is long enough for the trigram index. */
export function isIndexable(term: string): boolean {
  let count = 0;
  for (const _ of term) if (++count >= trigramLength) return true;
  return false;
}
