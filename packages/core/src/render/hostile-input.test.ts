import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { maxBodyLength } from "../posts/post-schemas.js";
import { pathologicalMarkdown } from "./pathological-markdown.js";

/**
 * Every pathological input, at the largest body a post may have, must render or be refused with a
 * 400 naming `bodyMarkdown` — never hang. Each one runs in a child process that is killed at the
 * deadline: a synchronous parse cannot be interrupted in-process, so a vitest timeout alone would
 * not end a hang. No timing is asserted: the deadline is far above the seconds these take, and far
 * below the hours that a quadratic parse of a million characters takes.
 */
const deadlineMs = 150_000;
const repositoryRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const moduleUrl = (path: string) => new URL(path, import.meta.url).href;

/** Run in the child: renders one input and prints what happened, as JSON. */
const childScript = `
const [source, index, size] = process.argv.slice(1);
const { pathologicalMarkdown } = await import(${JSON.stringify(moduleUrl("./pathological-markdown.ts"))});
const { renderMarkdown } = await import(${JSON.stringify(moduleUrl("./index.ts"))});
const { isEngineError } = await import(${JSON.stringify(moduleUrl("../errors.ts"))});
const markdown = source === "case" ? pathologicalMarkdown[Number(index)].make(Number(size)) : reported[index];
let result;
try {
  renderMarkdown(markdown);
  result = { outcome: "rendered", length: markdown.length };
} catch (error) {
  result = isEngineError(error)
    ? { outcome: "refused", code: error.code, fields: Object.keys(error.details?.fieldErrors ?? {}), length: markdown.length }
    : { outcome: "failed", message: String(error) };
}
process.stdout.write(JSON.stringify(result));
`;

/** The inputs exactly as reported, besides the corpus's scaled versions. */
const reportedScript = `
const reported = {
  quotes: "> ".repeat(50) + "x",
  brackets: "[".repeat(100000) + "]".repeat(100000),
  links: "[a](b ".repeat(30000),
  table: "| a ".repeat(2000) + "|\\n" + "| - ".repeat(2000) + "|\\n" + "| x ".repeat(2000) + "|\\n",
};
`;

interface Outcome {
  outcome: "rendered" | "refused" | "failed" | "timeout";
  code?: string;
  fields?: string[];
  length?: number;
  message?: string;
}

function renderInChild(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        "--conditions=source",
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        reportedScript + childScript,
        ...args,
      ],
      { cwd: repositoryRoot, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), deadlineMs);
    child.on("close", () => {
      clearTimeout(timer);
      if (output === "")
        resolve({ outcome: child.killed ? "timeout" : "failed", message: errors.slice(0, 500) });
      else resolve(JSON.parse(output) as Outcome);
    });
  });
}

function expectRenderedOrRefused(result: Outcome): void {
  expect(result.outcome, result.message).toMatch(/^(rendered|refused)$/);
  if (result.outcome === "refused")
    expect(result).toMatchObject({ code: "VALIDATION_ERROR", fields: ["bodyMarkdown"] });
}

describe("hostile Markdown at the largest body allowed", () => {
  const hostile = pathologicalMarkdown.flatMap((spec, index) =>
    spec.source === "legit" ? [] : [{ spec, index }],
  );

  it.each(hostile)(
    "$spec.name ($spec.source) renders or is refused",
    { timeout: deadlineMs + 10_000 },
    async ({ index }) => {
      const result = await renderInChild(["case", String(index), String(maxBodyLength)]);
      expectRenderedOrRefused(result);
      expect(result.length).toBeLessThanOrEqual(maxBodyLength);
    },
  );

  it.each(["quotes", "brackets", "links", "table"])(
    "the reported input %s renders or is refused",
    { timeout: deadlineMs + 10_000 },
    async (name) => {
      expectRenderedOrRefused(await renderInChild(["reported", name]));
    },
  );
});
