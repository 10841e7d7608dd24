/**
 * Markdown that makes parsers slow: the pathological cases of CommonMark's reference
 * implementations (cmark's `test/pathological_tests.py`), the ones reported against Quire, and the
 * ones found while bounding micromark's work. Each `make(size)` returns about `size` characters,
 * never more. Shared by the hostile-input test and `bench/markdown.ts`; not part of the API.
 */
export interface PathologicalCase {
  name: string;
  /** Where it comes from: `cmark`, `reported`, `found` (this work), or `legit` (a real-looking post, for scale). */
  source: "cmark" | "reported" | "found" | "legit";
  make: (size: number) => string;
}

/** `unit` repeated to at most `size` characters (at least once). */
function repeatTo(unit: string, size: number): string {
  return unit.repeat(Math.max(1, Math.floor(size / unit.length)));
}

/** Lines from `line(i)` for i = 0, 1, … while they fit in `size` characters. */
function linesTo(size: number, line: (index: number) => string): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; ; index++) {
    const next = line(index);
    if (length + next.length > size && index > 0) return parts.join("");
    parts.push(next);
    length += next.length;
  }
}

const prose =
  "Some *emphasis* and a [link](https://example.com/a_b) with `code_span` and snake_case words, **strong** text. ";

export const pathologicalMarkdown: PathologicalCase[] = [
  {
    name: "50 nested quotes a line `> > > … x`",
    source: "reported",
    make: (n) => repeatTo(`${"> ".repeat(50)}x\n`, n),
  },
  {
    name: "brackets `[[[…]]]` (unmatched)",
    source: "reported",
    make: (n) => `${"[".repeat(Math.floor(n / 2))}${"]".repeat(Math.floor(n / 2))}`,
  },
  { name: "unclosed links `[a](b `", source: "reported", make: (n) => repeatTo("[a](b ", n) },
  {
    name: "wide table (2,000 columns)",
    source: "reported",
    make: (n) => {
      const columns = Math.min(2000, Math.floor(n / 12));
      const head = `${"| a ".repeat(columns)}|\n${"| - ".repeat(columns)}|\n`;
      return head + `${"| x ".repeat(columns)}|\n`.repeat(Math.floor((n - head.length) / (columns * 4 + 2)));
    },
  },
  {
    name: "nested strong emphasis",
    source: "cmark",
    make: (n) => {
      const count = Math.floor((n - 1) / 14);
      return `${"*a **a ".repeat(count)}b${" a** a*".repeat(count)}`;
    },
  },
  { name: "emphasis closers without openers `a_ `", source: "cmark", make: (n) => repeatTo("a_ ", n) },
  { name: "emphasis openers without closers `_a `", source: "cmark", make: (n) => repeatTo("_a ", n) },
  { name: "link closers without openers `a]`", source: "cmark", make: (n) => repeatTo("a]", n) },
  { name: "link openers without closers `[a`", source: "cmark", make: (n) => repeatTo("[a", n) },
  { name: "mismatched openers and closers `*a_ `", source: "cmark", make: (n) => repeatTo("*a_ ", n) },
  {
    name: "openers and closers multiple of 3",
    source: "cmark",
    make: (n) => `a**b${repeatTo("c* ", n - 4)}`,
  },
  { name: "link openers and emphasis closers `[ a_`", source: "cmark", make: (n) => repeatTo("[ a_", n) },
  {
    name: "nested brackets `[[[a]]]`",
    source: "cmark",
    make: (n) => `${"[".repeat(Math.floor((n - 1) / 2))}a${"]".repeat(Math.floor((n - 1) / 2))}`,
  },
  { name: "nested block quotes `> > > … a`", source: "cmark", make: (n) => `${repeatTo("> ", n - 1)}a` },
  {
    name: "deeply nested lists",
    source: "cmark",
    make: (n) => linesTo(n, (index) => `${"  ".repeat(index)}* a\n`),
  },
  {
    name: "backticks `e` + 1…k backticks",
    source: "cmark",
    make: (n) => linesTo(n, (index) => `e${"`".repeat(index + 1)}`),
  },
  { name: "unclosed links `[a](<b`", source: "cmark", make: (n) => repeatTo("[a](<b", n) },
  { name: "unclosed links `[a](b`", source: "cmark", make: (n) => repeatTo("[a](b", n) },
  {
    name: "many references",
    source: "cmark",
    make: (n) =>
      linesTo(Math.floor(n * 0.8), (index) => `[${index + 1}]: u\n`) +
      repeatTo("[0] ", Math.floor(n * 0.2) - 4),
  },
  { name: "U+0000 in input", source: "cmark", make: (n) => repeatTo("abc\u0000de\u0000", n) },
  { name: "closing brackets between words `ab ] `", source: "found", make: (n) => repeatTo("ab ] ", n) },
  // The limit's exact measure ran GFM's autolink transform, whose splice of 90,000 links
  // overflowed the stack (render/inline-regions.ts).
  {
    name: "bare URLs in one paragraph `http://a.b `",
    source: "found",
    make: (n) => repeatTo("http://a.b ", n),
  },
  {
    name: "autolinks in one paragraph `<http://a.b> `",
    source: "found",
    make: (n) => repeatTo("<http://a.b> ", n),
  },
  { name: "escaped backticks `\\``", source: "found", make: (n) => repeatTo("\\``", n) },
  { name: "link titles `[ (](`", source: "found", make: (n) => repeatTo("[ (](", n) },
  { name: "`](`[` lines", source: "found", make: (n) => repeatTo("]([\n", n) },
  {
    name: "a quote, then lazy lines `> a` `b` `b` …",
    source: "found",
    make: (n) => `> a\n${repeatTo("b\n", n - 4)}`,
  },
  { name: "quotes closed by headings `> a` `# h`", source: "found", make: (n) => repeatTo("> a\n# h\n", n) },
  {
    name: "quotes between paragraphs `> a` `` `b`",
    source: "found",
    make: (n) => repeatTo("> a\n\nb\n\n", n),
  },
  { name: "list items holding quotes `- > a`", source: "found", make: (n) => repeatTo("- > a\n", n) },
  {
    name: "list items holding lists `- a` `  - b`",
    source: "found",
    make: (n) => repeatTo("- a\n  - b\n", n),
  },
  {
    name: "ordered markers on one line `1. 1. 1. …`",
    source: "found",
    make: (n) => `${repeatTo("1. ", n - 1)}x`,
  },
  {
    name: "footnote definitions",
    source: "found",
    make: (n) => linesTo(n, (index) => `[^${index + 1}]: a\n`),
  },
  { name: "a post of paragraphs, lists, code and tables", source: "legit", make: (n) => realisticPost(n) },
  { name: "one long paragraph", source: "legit", make: (n) => repeatTo(prose, n) },
  {
    name: "a table of 3 columns",
    source: "legit",
    make: (n) => `| a | b | c |\n| - | - | - |\n${repeatTo("| x | *y* | `z` |\n", n - 28)}`,
  },
  {
    name: "a flat list",
    source: "legit",
    make: (n) => repeatTo("- an item with a [link](https://example.com)\n", n),
  },
];

/** Headings, paragraphs, a list, a definition, fenced code and a table, over and over. */
function realisticPost(size: number): string {
  return linesTo(size, (index) =>
    [
      `## Part ${index}\n\n`,
      `${prose.repeat(5)}\n\n`,
      "- item _one_\n- item [two][r]\n  - nested `three`\n\n",
      "> A quote with **strong** text\n> over two lines.\n\n",
      "[r]: https://example.com\n\n",
      "```ts\nconst a_b = [1, 2, 3].map((x) => x * 2); // *not* emphasis [x]\n```\n\n",
      "| a | b |\n| - | - |\n| 1 | 2 |\n\n",
    ].join(""),
  );
}
