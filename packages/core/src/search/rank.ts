import type { Candidate } from "./search-query.js";

/** bm25's term-frequency saturation and length normalisation (the usual values). */
const k1 = 1.2;
const b = 0.75;

/**
 * Orders candidates best first, the same way on every database: a bm25 score over the folded
 * search text — for each term, its occurrences saturate against the text's length relative to the
 * candidates' average — summed over the terms; equal scores put the more recently written post
 * first. There is no inverse-document-frequency part: every candidate holds every term, so it
 * would weigh them all alike. @see docs/search.md § Ranking
 */
export function rankCandidates(candidates: readonly Candidate[], terms: readonly string[]): Candidate[] {
  if (candidates.length === 0) return [];
  const averageLength = candidates.reduce((sum, c) => sum + c.search_text.length, 0) / candidates.length || 1;
  const scored = candidates.map((candidate) => {
    const norm = k1 * (1 - b + (b * candidate.search_text.length) / averageLength);
    let score = 0;
    for (const term of terms) {
      const tf = occurrences(candidate.search_text, term);
      score += (tf * (k1 + 1)) / (tf + norm);
    }
    return { candidate, score };
  });
  scored.sort((x, y) => y.score - x.score || y.candidate.seq - x.candidate.seq);
  return scored.map((entry) => entry.candidate);
}

/** Non-overlapping occurrences of a term in a text. */
export function occurrences(text: string, term: string): number {
  let count = 0;
  for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + term.length)) count++;
  return count;
}
