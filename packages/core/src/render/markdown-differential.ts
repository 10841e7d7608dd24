import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Root } from "mdast";
import { EngineError } from "../errors.js";
import { renderEditorDoc } from "./index.js";
import { mdastToDoc } from "./mdast-to-doc.js";
import { type ParseRoute, parseMarkdownRouted } from "./parse-markdown.js";
import { pathologicalMarkdown } from "./pathological-markdown.js";

/**
 * The differential check of the fast Markdown parse (test support, not part of the API): a body's
 * stored forms, or the refusal, when parsed by the route `parseMarkdown` picks, against micromark.
 */

/**
 * What the pipeline keeps of a body's parse, or how it is refused, as one comparable string: the
 * editor document `renderMarkdown` makes from the tree (every stored form is made from it alone).
 * With `outputs`, the stored forms themselves.
 */
export function renderedVia(
  markdown: string,
  route?: ParseRoute,
  options: { change?: (tree: Root) => void; outputs?: boolean } = {},
): string {
  try {
    const { tree } = parseMarkdownRouted(markdown, "bodyMarkdown", route);
    options.change?.(tree);
    const doc = JSON.stringify(mdastToDoc(tree));
    // renderMarkdown, with the parse chosen here: the editor document renders as it would.
    return options.outputs ? JSON.stringify(renderEditorDoc(doc)) : doc;
  } catch (error) {
    if (error instanceof EngineError) return `refused: ${error.code} ${JSON.stringify(error.details)}`;
    throw error;
  }
}

/** Which parser `parseMarkdown` uses for a body, or `refused`. */
export function routeOf(markdown: string): ParseRoute | "refused" {
  try {
    return parseMarkdownRouted(markdown).route;
  } catch (error) {
    if (error instanceof EngineError) return "refused";
    throw error;
  }
}

/** The CommonMark spec's examples (0.31.2), from the `commonmark-spec` package. */
export function commonMarkExamples(): string[] {
  const spec = createRequire(import.meta.url)("commonmark-spec") as { tests: Array<{ markdown: string }> };
  return spec.tests.map((test) => test.markdown);
}

/** GFM and Quire cases written for this check: tables, strikethrough, autolinks, footnotes, tasks, HTML. */
export const gfmCases: string[] = [
  "| a | b |\n| - | - |\n| 1 | 2 |",
  "| a | b |\n|:-|-:|\n| 1 | 2 |\n| 3 |",
  "| a | b | c |\n|:-:|:--|--:|\n| 1 | 2 | 3 | 4 |",
  "a | b\n--|--\n1 | 2",
  "| a |\n| - |",
  "| a | b |\n| - |\n| 1 | 2 |",
  "para\n| a | b |\n| - | - |\n| 1 | 2 |",
  "| a | b |\n| - | - |\n| 1 | 2 |\npara",
  "| a | b |\n| - | - |\n| 1 | 2 |\n\npara",
  "| `a|b` | c \\| d |\n| - | - |\n| x | y |",
  "> | a |\n> | - |\n> | b |",
  "- | a |\n  | - |\n  | b |",
  "| *a* | **b** |\n| --- | --- |\n| [l](u) | ~c~ |",
  "|a|\n|-|\n|b|\n|c|\n\n|d|\n|:-:|\n|e|",
  "| a |\n|---|\n| b |\n- c",
  "| a |\n|---|\n| b |\n> c",
  "| a |\n|---|\n| b |\n# c",
  "|||\n|-|-|\n|||",
  "| a | b |\n| --- | --- |\n| <b>x</b> | y |",
  "~a~ ~~b~~ ~~~c~~~ a~b~c a ~ b ~",
  "~~a ~b~ c~~ ~a ~~b~~ c~",
  "~~a ~b~~ c~ *a ~b* c~",
  "\\~~a~~ ~\\~a~~ ~~a\\~~",
  "~~**a**~~ **~~a~~** *~a~*",
  "~~a\nb~~ ~~a\n\nb~~",
  "x~~a~~x (~~a~~) ~~ a ~~ ~~a ~~",
  "www.example.com http://example.com https://example.com/a_b?c=d#e",
  "a www.example.com/path. b (www.example.com) [www.example.com](u)",
  "Visit https://example.com/~user/ or https://example.com/a(b)c) now.",
  "mail me@example.com or me.you@ex-ample.co.uk. not @x or a@b",
  "mailto:a@b.com xmpp:a@b.com/x ftp://x.example www.a_b.com www.a.b_c.com",
  "<http://example.com> <me@example.com> http://a.b/c&amp;d https://x.y/z&lt;",
  "*www.example.com* **http://example.com** `www.example.com`",
  "www.example.com/a*b*c https://a.b/**x** http://a.b/_c_",
  "Note[^1] here.\n\n[^1]: The *note*.",
  "[^1]: http://x\n\n[^1]",
  "a [^note] b\n\n[^note]:\n    indented\n\n    more",
  "- [ ] todo\n- [x] done\n- [X] Done\n- [y] not",
  "- [ ]\n- [x]  \n* [ ] a\n  [x] b",
  "1. [x] one\n2. [ ] two",
  "> - [ ] quoted",
  "<!--more-->\n\nafter",
  "before\n\n<!--more-->\n\nafter",
  "a <!--more--> b",
  "> <!--more-->\n\n- <!--more-->",
  "<div>\n*x*\n</div>\n\nafter",
  "a <span>b</span> c <i>d</i>e",
  "<p>x</p>\n\na <b>b</b>\n\n[r]: http://r.example",
  "<script>alert(1)</script>\n\n<style>x</style>",
  "<b>open\n\nnext</b> end",
  "a <br> b <img src=x> c <b/> d",
  "[a](javascript:alert(1)) ![b](data:x) [c](vbscript:x)",
  '[a][one] [one] ![b][one]\n\n[one]: http://x.example "T"',
  "[a][x]\n\n[x]: http://first.example\n[X]: http://second.example",
  "![a *b* `c`](u 't') ![](v) ![x\ny](w)",
  "[![img](i)](l) [a ![b](c) d](e)",
  "a  \nb\\\nc\nd",
  "&amp; &copy; &#35; &#x22; &nbsp; &bogus; &",
  "```js extra meta\ncode\n```\n\n~~~\ntilde\n~~~\n\n    indented\n\n```\n```",
  "```a\\_b &amp; c\nx\n```",
  "# h1\n## h2 ##\nsetext\n===\nsetext2\n---",
  "1. a\n2. b\n\n3) c\n\n7. d\n8. e",
  "- a\n\n- b\n- c\n\n  d",
  "- a\n  - b\n    - c\n      > d",
  "***\n---\n___\n* * *",
  "a\n***\nb",
  "\ttab\n\n>\ttab\n\n-\ttab",
  "line with trailing spaces   \nnext\t\nlast",
  "**a *b* c** *a **b** c* ***a*** _a_ __a__ a_b_c a*b*c",
  "",
  "   ",
  "\n\n\n",
  "\u00a0nbsp\u00a0",
  "é ü 日本語 👋🏽 ‮rtl",
  "a\r\nb\r\n\r\nc",
  "a\rb",
  "nul\0x",
];

/** Every string literal in the render tests: the Markdown they feed the pipeline, and more. */
export function renderTestStrings(): string[] {
  const directory = dirname(fileURLToPath(import.meta.url));
  const strings = new Set<string>();
  for (const file of readdirSync(directory).filter((name) => name.endsWith(".test.ts"))) {
    const source = readFileSync(join(directory, file), "utf8");
    for (const match of source.matchAll(/"(?:[^"\\\n]|\\.)*"/g)) {
      try {
        strings.add(JSON.parse(match[0]) as string);
      } catch {
        // Not a JSON-compatible literal; skip it.
      }
    }
    for (const match of source.matchAll(/`((?:[^`\\$]|\\.)*)`/g)) {
      try {
        strings.add(JSON.parse(`"${match[1]!.replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`) as string);
      } catch {
        // Not a plain template literal; skip it.
      }
    }
  }
  return [...strings];
}

/** The pathological bodies at sizes micromark parses quickly. */
export function pathologicalBodies(sizes: number[]): string[] {
  return pathologicalMarkdown.flatMap((entry) => sizes.map((size) => entry.make(size)));
}

/** Pieces the random bodies are made of: every character that starts or ends a construct. */
const pieces = [
  "a",
  "b",
  "word",
  " ",
  " ",
  "  ",
  "\t",
  "\n",
  "\n",
  "\n\n",
  "\n    ",
  "\n> ",
  "\n- ",
  "\n1. ",
  "\n2) ",
  "*",
  "**",
  "_",
  "__",
  "~",
  "~~",
  "~~~",
  "`",
  "``",
  "```",
  "\n```\n",
  "\n~~~",
  "[",
  "]",
  "(",
  ")",
  "![",
  "](",
  "<",
  ">",
  "</b>",
  "<b>",
  "<!--",
  "-->",
  "<!--more-->",
  "\n<div>",
  "&amp;",
  "&#35;",
  "&x",
  "\\",
  "!",
  "#",
  "# ",
  "\n## ",
  "=",
  "\n===",
  "\n---",
  "-",
  "+",
  "|",
  " | ",
  "\n| a | b |\n| - | :-: |\n",
  "\n|",
  "|\n",
  ":",
  "http://",
  "https://",
  "www.",
  ".com",
  "example",
  "@",
  "me@ex.com",
  "/",
  "?",
  ".",
  ",",
  "'",
  '"',
  "[x]",
  "[ ]",
  "[^1]",
  "[^1]: ",
  "[ref]",
  "\n[ref]: /u",
  " 't'",
  "é",
  "日本",
  "👋",
  "1.",
  "0",
  "9",
  "\n***\n",
  "\u00a0",
  ";",
  "{",
  "}",
];

/** The pieces less those that always send a body to micromark (footnotes, task checks, tables). */
const fastPieces = pieces.filter((piece) => !/\[\^|\[[ x]\]|\| - \|/.test(piece));

/**
 * A seeded generator of Markdown-ish bodies, `count` of them, each of up to `length` pieces; with
 * `fastOnly`, without the pieces that always send a body to micromark.
 */
export function randomBodies(seed: number, count: number, length: number, fastOnly = false): string[] {
  const from = fastOnly ? fastPieces : pieces;
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return state;
  };
  return Array.from({ length: count }, () => {
    const size = 1 + (next() % length);
    let body = "";
    for (let index = 0; index < size; index++) body += from[next() % from.length];
    return body;
  });
}

/** Cell contents for the table bodies: inline syntax, no line breaks. */
const cellPieces = [
  "a",
  "word",
  " ",
  "  ",
  "*",
  "**",
  "_",
  "~",
  "~~",
  "[",
  "]",
  "(",
  ")",
  "![",
  "](",
  "http://",
  "www.",
  ".com",
  "@",
  "me@ex.com",
  "&amp;",
  "&#35;",
  "é",
  "日本",
  "👋",
  "!",
  ":",
  "-",
  "'",
  '"',
  "\\|",
  "`",
  "<b>",
  "</b>",
  "#",
  "1.",
  "\u00a0",
  "\t",
];

/**
 * A seeded generator of bodies built around GFM tables: simple ones (from `|` to `|`, as many cells
 * in every row) and near misses (a cell more or less, a missing outer pipe, no blank line around,
 * a header without pipes, a quote or list around it), with inline syntax in the cells.
 */
export function tableBodies(seed: number, count: number): string[] {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return state;
  };
  const cell = () => {
    let text = "";
    for (let index = next() % 4; index >= 0; index--) text += cellPieces[next() % cellPieces.length];
    return text;
  };
  const row = (width: number) => {
    const cells = Array.from(
      { length: Math.max(0, width + (next() % 10 === 0 ? (next() % 3) - 1 : 0)) },
      cell,
    );
    const joined = cells.join("|");
    return next() % 12 === 0 ? joined : `|${joined}|`;
  };
  const alignments = ["-", "---", ":-", "-:", ":-:", " --- ", ":---:", "--"];
  return Array.from({ length: count }, () => {
    const width = 1 + (next() % 4);
    const delimiter = `|${Array.from({ length: width }, () => alignments[next() % alignments.length]).join("|")}|`;
    const rows = Array.from({ length: next() % 4 }, () => row(width));
    const table = [row(width), next() % 15 === 0 ? delimiter.slice(1) : delimiter, ...rows].join("\n");
    const before = ["", "para\n\n", "para\n", "> ", "- ", "# h\n"][next() % 6];
    const after = ["", "\n\npara", "\npara", "\n- item", "\n> quote", "\n\n| x |"][next() % 6];
    return `${before}${table}${after}`;
  });
}
