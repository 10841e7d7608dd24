import { describe, expect, it } from "vitest";
import { EngineError } from "../errors.js";
import { checkMarkdownLimits } from "./markdown-limits.js";
import { pathologicalMarkdown } from "./pathological-markdown.js";

function refusal(markdown: string, field = "bodyMarkdown"): EngineError | undefined {
  try {
    checkMarkdownLimits(markdown, field);
    return undefined;
  } catch (error) {
    return error as EngineError;
  }
}

function expectRefused(markdown: string, field = "bodyMarkdown"): void {
  const error = refusal(markdown, field);
  expect(error).toBeInstanceOf(EngineError);
  expect(error).toMatchObject({
    code: "VALIDATION_ERROR",
    details: { fieldErrors: { [field]: [expect.any(String)] } },
  });
}

describe("checkMarkdownLimits", () => {
  it("lets real-looking posts of a million characters through", () => {
    for (const spec of pathologicalMarkdown.filter(
      (candidate) => candidate.source === "legit" && candidate.name !== "one long paragraph",
    )) {
      expect(refusal(spec.make(1_000_000)), spec.name).toBeUndefined();
    }
  });

  it("refuses a line opening 100 containers, and nesting past the tree's limit", () => {
    expectRefused(`${"> ".repeat(100)}x`);
    expectRefused(Array.from({ length: 250 }, (_, depth) => `${"  ".repeat(depth)}- a`).join("\n"));
    expect(refusal(`${"> ".repeat(99)}x`)).toBeUndefined();
  });

  it("refuses too many containers closed the slow way, and too many lazy lines", () => {
    expectRefused("> a\n# h\n".repeat(20_000));
    expectRefused(`> a\n${"b\n".repeat(100_000)}`);
    expect(refusal("> a\n# h\n".repeat(500))).toBeUndefined();
  });

  it("refuses long paragraphs dense with brackets, emphasis or backticks", () => {
    expectRefused("[".repeat(20_000));
    expectRefused("a_ ".repeat(10_000));
    expectRefused("\\``".repeat(10_000));
    expect(refusal("a_ ".repeat(1000))).toBeUndefined();
  });

  it("measures exactly when the quick estimate is over, so code and lists without blank lines pass", () => {
    const code = `    ${"[x] a_b ".repeat(40)}\n`.repeat(500);
    expect(refusal(`para\n\n${code}`)).toBeUndefined();
    const ordered = Array.from({ length: 3000 }, (_, index) => `${index + 2}. [link](u) *a*`).join("\n");
    expect(refusal(`1. a\n${ordered}`)).toBeUndefined();
  });

  it("refuses too many references and definitions", () => {
    const definitions = Array.from({ length: 5000 }, (_, index) => `[${index}]: /u\n`).join("");
    expectRefused(`${definitions}\n${"[0] ".repeat(10_000)}`);
  });

  it("names the field it is given", () => {
    expectRefused("[".repeat(20_000), "content");
  });
});
