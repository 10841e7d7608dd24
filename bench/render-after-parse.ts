/**
 * The render after the parse, step by step (issue 13, write path): per-body times of each step that
 * turns a parsed bench:write body into its stored forms, the reference (library) way and the way
 * `renderMarkdown` does it now, alternated round by round in one process, and a check that both
 * give the same bytes.
 *
 *   pnpm bench:render-after-parse [--bodies=2000] [--rounds=5]
 */
import { docToMdast } from "../packages/core/src/render/doc-to-mdast.js";
import { mdastToDoc } from "../packages/core/src/render/mdast-to-doc.js";
import { parseMarkdown } from "../packages/core/src/render/parse-markdown.js";
import { referenceMdastToDoc } from "../packages/core/src/render/reference-mdast-to-doc.js";
import { referenceDocToMdast, referenceRenderDoc } from "../packages/core/src/render/reference-render.js";
import { renderDoc } from "../packages/core/src/render/render-doc.js";
import { libraryMdastToHtml, mdastToHtml } from "../packages/core/src/render/to-html.js";
import { libraryMdastToMarkdown, mdastToMarkdown } from "../packages/core/src/render/to-markdown.js";
import { mdastToText } from "../packages/core/src/render/to-text.js";
import { benchArgs, parseSize } from "./bench-args.js";
import { benchReport } from "./report.js";
import { markdownBody } from "./write-body.js";

const args = benchArgs();
const report = benchReport("bench:render-after-parse");
const { log } = report;
const count = parseSize(args.bodies ?? "2000");
const rounds = Number(args.rounds ?? 5);

const parsed = Array.from({ length: count }, (_, n) => parseMarkdown(markdownBody(n)));
const docs = parsed.map((tree) => mdastToDoc(tree));
const trees = docs.map((doc) => docToMdast(doc));

for (const [index, doc] of docs.entries()) {
  const want = JSON.stringify(referenceRenderDoc(doc));
  if (JSON.stringify(renderDoc(doc)) !== want) throw new Error(`body ${index} renders differently`);
}

type Step = [name: string, run: (index: number) => unknown];
const steps: Array<[string, Step[1] | undefined, Step[1]]> = [
  ["docToMdast", (i) => referenceDocToMdast(docs[i]!), (i) => docToMdast(docs[i]!)],
  ["mdastToDoc", (i) => referenceMdastToDoc(trees[i]!), (i) => mdastToDoc(trees[i]!)],
  ["JSON.stringify", undefined, (i) => JSON.stringify(docs[i]!)],
  ["mdastToHtml", (i) => libraryMdastToHtml(trees[i]!), (i) => mdastToHtml(trees[i]!)],
  ["mdastToText", undefined, (i) => mdastToText(trees[i]!)],
  ["mdastToMarkdown", (i) => libraryMdastToMarkdown(trees[i]!), (i) => mdastToMarkdown(trees[i]!)],
  ["renderDoc", (i) => referenceRenderDoc(docs[i]!), (i) => renderDoc(docs[i]!)],
  // What renderMarkdown does after the parse: the parsed tree to a document, then renderDoc.
  [
    "after the parse",
    (i) => referenceRenderDoc(referenceMdastToDoc(parsed[i]!)),
    (i) => renderDoc(mdastToDoc(parsed[i]!)),
  ],
];

/** Milliseconds per body of one pass over every body. */
function time(run: (index: number) => unknown): number {
  const start = performance.now();
  for (let index = 0; index < count; index++) run(index);
  return (performance.now() - start) / count;
}

const best = new Map<string, { before: number; after: number }>();
for (let round = 0; round <= rounds; round++) {
  for (const [name, before, after] of steps) {
    // Round 0 warms up; the best of the others is kept (the machine is shared).
    const beforeMs = time(before ?? after);
    const afterMs = time(after);
    if (round === 0) continue;
    const kept = best.get(name) ?? { before: Infinity, after: Infinity };
    best.set(name, { before: Math.min(kept.before, beforeMs), after: Math.min(kept.after, afterMs) });
  }
}

log(`render after the parse, ${count} bench:write bodies, best of ${rounds} rounds`);
log(`${"step".padEnd(18)} ${"before ms".padStart(10)} ${"after ms".padStart(10)}`);
for (const [name, { before, after }] of best) {
  log(`${name.padEnd(18)} ${before.toFixed(3).padStart(10)} ${after.toFixed(3).padStart(10)}`);
}
report.save();
