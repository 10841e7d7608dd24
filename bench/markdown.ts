/**
 * Markdown parse benchmark: `pnpm bench:markdown [--sizes=1k,10k,100k,1m] [--limit=30] [--only=text,…]`.
 * Parses, then renders, each pathological case of packages/core/src/render/pathological-markdown.ts
 * at several sizes, each in a child process killed after `--limit` seconds, and prints CPU time and
 * the outcome (rendered, or refused with a 400). See bench/README.md.
 */
import { fork } from "node:child_process";
import { isEngineError } from "../packages/core/src/errors.js";
import { renderMarkdown } from "../packages/core/src/render/index.js";
import { parseMarkdown } from "../packages/core/src/render/parse-markdown.js";
import { pathologicalMarkdown } from "../packages/core/src/render/pathological-markdown.js";
import { parseSize } from "./bench-args.js";
import { benchReport } from "./report.js";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);

/** What one child reports for one case at one size. */
interface Measurement {
  length: number;
  outcome: "rendered" | "refused" | "failed";
  /** CPU milliseconds of `parseMarkdown` (the guard included), and of the whole `renderMarkdown`. */
  parseMs: number;
  renderMs: number;
  note?: string;
}

if (args.child) runChild(Number(args.case), Number(args.size));
else await runAll();

function runChild(caseIndex: number, size: number): void {
  const markdown = (pathologicalMarkdown[caseIndex] as (typeof pathologicalMarkdown)[number]).make(size);
  const parse = cpuTimed(() => parseMarkdown(markdown));
  const render = parse.error === undefined ? cpuTimed(() => renderMarkdown(markdown)) : parse;
  const error = render.error;
  const result: Measurement = {
    length: markdown.length,
    outcome:
      error === undefined
        ? "rendered"
        : isEngineError(error) && error.code === "VALIDATION_ERROR"
          ? "refused"
          : "failed",
    parseMs: parse.ms,
    renderMs: parse.error === undefined ? render.ms : 0,
    ...(error === undefined ? {} : { note: String((error as Error).message).slice(0, 100) }),
  };
  process.send?.(result, () => process.exit(0));
}

function cpuTimed(fn: () => unknown): { ms: number; error?: unknown } {
  const start = process.cpuUsage();
  let error: unknown;
  try {
    fn();
  } catch (caught) {
    error = caught;
  }
  const used = process.cpuUsage(start);
  return { ms: (used.user + used.system) / 1000, ...(error === undefined ? {} : { error }) };
}

async function runAll(): Promise<void> {
  const sizes = (args.sizes ?? "1k,10k,100k,1m").split(",").map(parseSize);
  const limitMs = Number(args.limit ?? 30) * 1000;
  const only = args.only?.split(",");
  const report = benchReport("bench:markdown");
  const { log } = report;
  log(
    `\nCPU ms of parseMarkdown / renderMarkdown, each case in a fresh process; limit ${limitMs / 1000} s.\n`,
  );
  log(`| case | source | ${sizes.map(formatSize).join(" | ")} |`);
  log(`|---|---|${sizes.map(() => "---").join("|")}|`);
  for (const [index, spec] of pathologicalMarkdown.entries()) {
    if (only && !only.some((text: string) => spec.name.includes(text))) continue;
    const cells: string[] = [];
    let timedOut = false;
    for (const size of sizes) {
      const result: Measurement | "timeout" | "skipped" = timedOut
        ? "skipped"
        : await measureInChild(index, size, limitMs);
      timedOut ||= result === "timeout";
      cells.push(result === "skipped" ? "—" : formatCell(result, limitMs));
    }
    log(`| ${spec.name} | ${spec.source} | ${cells.join(" | ")} |`);
  }
  report.save();
}

function measureInChild(caseIndex: number, size: number, limitMs: number): Promise<Measurement | "timeout"> {
  return new Promise((resolve) => {
    const child = fork(process.argv[1] as string, ["--child", `--case=${caseIndex}`, `--size=${size}`], {
      execArgv: process.execArgv,
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve("timeout");
    }, limitMs);
    child.on("message", (message) => {
      clearTimeout(timer);
      resolve(message as Measurement);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ length: 0, outcome: "failed", parseMs: 0, renderMs: 0, note: `exit ${code}` });
    });
  });
}

function formatCell(result: Measurement | "timeout", limitMs: number): string {
  if (result === "timeout") return `> ${limitMs / 1000} s`;
  if (result.outcome === "refused") return `400 in ${ms(result.parseMs)}`;
  if (result.outcome === "failed") return `failed: ${result.note}`;
  return `${ms(result.parseMs)} / ${ms(result.renderMs)}`;
}

function ms(value: number): string {
  return value < 10 ? value.toFixed(1) : value.toFixed(0);
}

function formatSize(size: number): string {
  return size >= 1_000_000 ? `${size / 1_000_000}M` : size >= 1000 ? `${size / 1000}k` : String(size);
}
