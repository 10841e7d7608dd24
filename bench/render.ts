/**
 * The Markdown parse, before and after (issue 13, write path, helper R1): per-body times of
 * `parseMarkdown` by micromark (the reference, and the fallback route) and by the route it takes now
 * (markdown-it for every bench:write body), and of the whole `renderMarkdown` with either parse,
 * alternated round by round in one process, with a check that both give the same bytes and a count
 * of the route each body takes.
 *
 *   pnpm bench:render [--bodies=2000] [--rounds=5]
 */
import { mdastToDoc } from "../packages/core/src/render/mdast-to-doc.js";
import { type ParseRoute, parseMarkdownRouted } from "../packages/core/src/render/parse-markdown.js";
import { renderDoc } from "../packages/core/src/render/render-doc.js";
import { benchArgs, parseSize } from "./bench-args.js";
import { benchReport } from "./report.js";
import { markdownBody } from "./write-body.js";

const args = benchArgs();
const report = benchReport("bench:render");
const { log } = report;
const count = parseSize(args.bodies ?? "2000");
const rounds = Number(args.rounds ?? 5);
const bodies = Array.from({ length: count }, (_, n) => markdownBody(n));

const parse = (markdown: string, route?: ParseRoute) => parseMarkdownRouted(markdown, "bodyMarkdown", route);
const render = (markdown: string, route?: ParseRoute) => renderDoc(mdastToDoc(parse(markdown, route).tree));

const routes: Record<string, number> = {};
for (const markdown of bodies) {
  const route = parse(markdown).route;
  routes[route] = (routes[route] ?? 0) + 1;
  if (JSON.stringify(render(markdown)) !== JSON.stringify(render(markdown, "micromark"))) {
    throw new Error(`a body renders differently: ${JSON.stringify(markdown)}`);
  }
}

type Run = (markdown: string) => unknown;
const series: Array<[string, Run]> = [
  ["parseMarkdown, micromark (before)", (markdown) => parse(markdown, "micromark")],
  ["parseMarkdown, routed (after)", (markdown) => parse(markdown)],
  ["renderMarkdown, micromark parse (before)", (markdown) => render(markdown, "micromark")],
  ["renderMarkdown, routed parse (after)", (markdown) => render(markdown)],
];
const best = new Map<string, number>();
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of series) {
    const started = process.hrtime.bigint();
    for (const markdown of bodies) run(markdown);
    const ms = Number(process.hrtime.bigint() - started) / 1e6 / bodies.length;
    best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, ms));
  }
}

log(`${count} bench:write bodies (${bodies[0]!.length} characters for body 0), best of ${rounds} rounds`);
log(`Routes: ${JSON.stringify(routes)}; every body renders to the same bytes by either parse`);
for (const [name] of series) log(`${name.padEnd(44)} ${best.get(name)!.toFixed(3)} ms per body`);
report.save();
