import { describe, expect, it } from "vitest";
import { EngineError } from "../errors.js";
import * as render from "./index.js";
import { renderEditorDoc, renderMarkdown } from "./index.js";

/** Markdown that exercises every feature and the characters that need escaping. */
const corpus = {
  marks:
    "Plain *em* _em too_ **strong** __strong too__ ~~strike~~ `code` and ***both*** and **bold `code`**.",
  headings: "# One\n\n## Two *em*\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six\n\nSetext\n======",
  breaks: "soft\nbreak stays\n\ntwo spaces  \nhard\n\nbackslash\\\nhard too\n\n**bold\\\nacross** a break",
  lists: "- a\n- b\n  - nested\n    - deeper\n- c\n\n1. one\n2. two\n   1. sub\n\n7. seven\n8. eight",
  looseLists: "- para one\n\n  para two\n\n- next\n\n* other list\n* marker",
  listWithCode: "- item\n\n  ```js\n  code();\n  ```\n\n- item two",
  table:
    "| Left | Center | Right | None |\n|:-----|:------:|------:|------|\n| a | **b** | `c` | [d](http://d.example) |\n| pipe \\| here | `x \\| y` | | |",
  shortRow: "| a | b |\n| - | - |\n| 1 |",
  code: "```ts\nconst a: string = `x`;\n\n// blank line above\n```\n\n~~~\nno language\n~~~\n\n    indented code",
  fences: "````md\n```js\ninner\n```\n````",
  links:
    '[plain](http://a.example) [titled](http://b.example "A title") <https://auto.example> <me@mail.example> www.bare.example and https://bare.example/path?q=1',
  references: '[ref link][r] and ![ref image][r]\n\n[r]: http://ref.example/img.png "Ref"',
  images:
    '![alt text](http://img.example/a.png) ![with title](/relative.png "T") [![linked](http://img.example/b.png)](http://link.example)',
  blockquotes: "> quoted *text*\n>\n> - a list\n> - inside\n>\n> > nested quote\n\n> 1. ordered\n> 2. inside",
  rules: "above\n\n---\n\nbetween\n\n***\n\n___\n\nbelow",
  excerpt: "Intro paragraph.\n\n<!--more-->\n\nThe rest.\n\n<!-- more -->",
  escaping:
    "\\*not emphasis\\* and \\_not either\\_\n\n\\# not a heading\n\n1\\. not a list\n\n\\- not a bullet\n\n\\> not a quote\n\n\\<!--more--> as text\n\na * b _ c # d | e [f] `g` \\\\ h",
  specialAtStart: "\\+ plus\n\n\\=== equals\n\n2\\) paren",
  entities: "Ünïcödé — “quotes” &amp; &copy; &#x3C;tag&#x3E; &nbsp;",
  rawHtml: "before <span>hidden</span> after\n\n<div>\nblock\n</div>\n\n<script>alert(1)</script>",
  unsafeUrls: "[x](javascript:alert(1)) ![y](data:image/png;base64,AAAA) [z](JaVaScRiPt:alert(1))",
  footnotes: "Text with a note[^1].\n\n[^1]: The note.",
  tasks: "- [ ] open\n- [x] done",
  empty: "",
  whitespaceOnly: "   \n\n  ",
};

describe("render API", () => {
  it("exports exactly renderMarkdown and renderEditorDoc", () => {
    expect(Object.keys(render).sort()).toEqual(["renderEditorDoc", "renderMarkdown"]);
  });

  it("produces all four forms from Markdown", () => {
    const result = renderMarkdown("# Title\n\nSome *text*.");
    expect(JSON.parse(result.body)).toEqual({
      type: "doc",
      content: [
        { type: "heading", attrs: { level: 1 }, content: [{ type: "text", text: "Title" }] },
        {
          type: "paragraph",
          content: [
            { type: "text", text: "Some " },
            { type: "text", marks: [{ type: "italic" }], text: "text" },
            { type: "text", text: "." },
          ],
        },
      ],
    });
    expect(result.html).toBe("<h1>Title</h1>\n<p>Some <em>text</em>.</p>");
    expect(result.text).toBe("Title\n\nSome text.");
    expect(result.markdown).toBe("# Title\n\nSome *text*.");
  });

  it("produces all four forms from an editor document", () => {
    const body = JSON.stringify({
      type: "doc",
      content: [{ type: "paragraph", content: [{ type: "text", marks: [{ type: "bold" }], text: "Hi" }] }],
    });
    expect(renderEditorDoc(body)).toEqual({
      body,
      html: "<p><strong>Hi</strong></p>",
      text: "Hi",
      markdown: "**Hi**",
    });
  });

  it("gives an empty body a doc with one empty paragraph", () => {
    expect(renderMarkdown("")).toEqual({
      body: '{"type":"doc","content":[{"type":"paragraph"}]}',
      html: "",
      text: "",
      markdown: "",
    });
    expect(renderEditorDoc('{"type":"doc"}')).toEqual(renderMarkdown(""));
  });
});

describe("renderEditorDoc errors", () => {
  const rejects = (body: string) => {
    let error: unknown;
    try {
      renderEditorDoc(body);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).code).toBe("VALIDATION_ERROR");
    expect((error as EngineError).details).toMatchObject({ fieldErrors: { body: [expect.any(String)] } });
  };

  it("rejects a string that is not JSON", () => rejects("not json {"));
  it("rejects a JSON array", () => rejects('[{"type":"doc"}]'));
  it("rejects JSON that is not an object", () => rejects('"doc"'));
  it("rejects null", () => rejects("null"));
  it("rejects a top node that is not a doc", () => rejects('{"type":"paragraph"}'));
  it("rejects a top node without a type", () => rejects('{"content":[]}'));
  it("rejects a node without a type inside", () => rejects('{"type":"doc","content":[{"content":[]}]}'));
  it("rejects content that is not a list", () => rejects('{"type":"doc","content":{"type":"paragraph"}}'));
  it("rejects a nested content that is not a list", () =>
    rejects('{"type":"doc","content":[{"type":"paragraph","content":"text"}]}'));
  it("rejects a text node without text", () =>
    rejects('{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text"}]}]}'));
  it("rejects marks that are not a list of marks", () => {
    rejects(
      '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"a","marks":"bold"}]}]}',
    );
    rejects(
      '{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"a","marks":[1]}]}]}',
    );
  });
  it("rejects attrs that are not an object", () =>
    rejects('{"type":"doc","content":[{"type":"heading","attrs":[1],"content":[]}]}'));
  it("rejects a document nested deeper than any editor makes", () => {
    let node: unknown = { type: "paragraph" };
    for (let depth = 0; depth < 1000; depth++) node = { type: "blockquote", content: [node] };
    rejects(JSON.stringify({ type: "doc", content: [node] }));
  });
});

describe("Markdown nesting limit", () => {
  it("rejects Markdown nested deeper than the limit, naming bodyMarkdown", () => {
    expect(() => renderMarkdown(`${">".repeat(300)} deep`)).toThrow(EngineError);
    expect(() => renderMarkdown(`${">".repeat(20)} fine`)).not.toThrow();
  });
});

describe("round trips", () => {
  it.each(Object.entries(corpus))("Markdown → store → Markdown → store is stable: %s", (_name, markdown) => {
    const first = renderMarkdown(markdown);
    const second = renderMarkdown(first.markdown);
    expect(second.body).toBe(first.body);
    expect(second.markdown).toBe(first.markdown);
    expect(second.html).toBe(first.html);
    expect(second.text).toBe(first.text);
  });

  it.each(Object.entries(corpus))("the stored body renders the same again: %s", (_name, markdown) => {
    const first = renderMarkdown(markdown);
    expect(renderEditorDoc(first.body)).toEqual(first);
  });

  it("keeps a hand-built document with every node and mark through Markdown", () => {
    const first = renderEditorDoc(JSON.stringify(everyNodeDoc));
    expect(JSON.parse(first.body)).toEqual(everyNodeDoc);
    const throughMarkdown = renderMarkdown(first.markdown);
    expect(throughMarkdown.body).toBe(first.body);
    expect(renderEditorDoc(throughMarkdown.body)).toEqual(first);
  });

  it("renders the hand-built document as expected", () => {
    const { markdown, html, text } = renderEditorDoc(JSON.stringify(everyNodeDoc));
    expect(markdown).toBe(everyNodeMarkdown);
    expect(html).toContain("<!--more-->");
    expect(html).toContain('<th align="center">');
    expect(text).toBe(everyNodeText);
  });
});

const text = (value: string, ...marks: object[]) =>
  marks.length > 0 ? { type: "text", marks, text: value } : { type: "text", text: value };
const paragraph = (...content: object[]) => ({ type: "paragraph", content });

/** A normalised document using every node and mark the renderer knows. */
const everyNodeDoc = {
  type: "doc",
  content: [
    { type: "heading", attrs: { level: 2 }, content: [text("Heading")] },
    paragraph(
      text("plain "),
      text("bold", { type: "bold" }),
      text(" "),
      text("italic", { type: "italic" }),
      text(" "),
      text("strike", { type: "strike" }),
      text(" "),
      text("code", { type: "code" }),
      text(" "),
      text("link", { type: "link", attrs: { href: "https://example.com", title: "Title" } }),
      text(" "),
      text(
        "all",
        { type: "link", attrs: { href: "/x" } },
        { type: "bold" },
        { type: "italic" },
        { type: "strike" },
      ),
      text("\nsoft"),
      { type: "hardBreak" },
      text("hard"),
    ),
    { type: "readMore" },
    {
      type: "bulletList",
      content: [
        { type: "listItem", content: [paragraph(text("one"))] },
        {
          type: "listItem",
          content: [
            paragraph(text("two")),
            {
              type: "orderedList",
              attrs: { start: 3 },
              content: [{ type: "listItem", content: [paragraph(text("three"))] }],
            },
          ],
        },
      ],
    },
    { type: "blockquote", content: [paragraph(text("quoted"))] },
    { type: "codeBlock", attrs: { language: "js" }, content: [text("let a = 1;\nlet b = 2;")] },
    { type: "horizontalRule" },
    paragraph({ type: "image", attrs: { src: "https://example.com/a.png", alt: "An image", title: "Img" } }),
    {
      type: "table",
      content: [
        {
          type: "tableRow",
          content: [
            { type: "tableHeader", content: [paragraph(text("H1"))] },
            { type: "tableHeader", attrs: { align: "center" }, content: [paragraph(text("H2"))] },
          ],
        },
        {
          type: "tableRow",
          content: [
            { type: "tableCell", content: [paragraph(text("c1"))] },
            {
              type: "tableCell",
              attrs: { align: "center" },
              content: [paragraph(text("c2", { type: "bold" }))],
            },
          ],
        },
      ],
    },
  ],
};

const everyNodeMarkdown = [
  "## Heading",
  "",
  'plain **bold** *italic* ~~strike~~ `code` [link](https://example.com "Title") [**_~~all~~_**](/x)',
  "soft\\",
  "hard",
  "",
  "<!--more-->",
  "",
  "- one",
  "- two",
  "",
  // An ordered list not starting at 1 cannot interrupt a paragraph, hence the blank line.
  "  3. three",
  "",
  "> quoted",
  "",
  "```js",
  "let a = 1;",
  "let b = 2;",
  "```",
  "",
  "---",
  "",
  '![An image](https://example.com/a.png "Img")',
  "",
  "| H1 |   H2   |",
  "| -- | :----: |",
  "| c1 | **c2** |",
].join("\n");

const everyNodeText = [
  "Heading",
  "",
  "plain bold italic strike code link all\nsoft\nhard",
  "",
  "one\ntwo\nthree",
  "",
  "quoted",
  "",
  "let a = 1;\nlet b = 2;",
  "",
  "An image",
  "",
  "H1\tH2\nc1\tc2",
].join("\n");
