import { describe, expect, it } from "vitest";
import { newFenceState, readFenceLine } from "./code-fences.js";

/** Which lines of `markdown` are taken for fenced code. */
function fenced(markdown: string): boolean[] {
  const state = newFenceState();
  return markdown.split("\n").map((line) => readFenceLine(state, line, line.trimStart()));
}

describe("readFenceLine", () => {
  it("follows a fence at a line's start to its closing line", () => {
    expect(fenced("a\n```js\n[x]\n\n````\nb")).toEqual([false, true, true, true, true, false]);
    expect(fenced("~~~\n```\n~~~\nb")).toEqual([true, true, true, false]);
  });

  it("runs an unclosed fence to the end", () => {
    expect(fenced("```\na\n\nb")).toEqual([true, true, true, true]);
  });

  it("takes no backtick fence whose info string has a backtick", () => {
    expect(fenced("``` a`b\nc")).toEqual([false, false]);
  });

  it("follows no fence once an indented one may be open", () => {
    expect(fenced("  ```\na\n```\nb\n```\nc")).toEqual([false, false, false, false, false, false]);
  });

  it("follows no fence inside a possible HTML block", () => {
    expect(fenced("<div>\n```\n\nx\n```\ny")).toEqual([false, false, false, false, false, false]);
    expect(fenced("<!--\n\n```\n-->\n\n```\nz")).toEqual([false, false, false, false, false, false, false]);
    expect(fenced("<pre>\n\n</pre>\n\n```\nz")).toEqual([false, false, false, false, true, true]);
  });

  it("leaves fences inside containers alone: a fence at a line's start closes them", () => {
    expect(fenced("> ```\n> a\n\n```\nb")).toEqual([false, false, false, true, true]);
  });
});
