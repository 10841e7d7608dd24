import type { Root } from "mdast";
import { describe, expect, it } from "vitest";
import { parseMarkdown } from "./parse-markdown.js";
import { mdastToHtml } from "./to-html.js";

const html = (markdown: string) => mdastToHtml(parseMarkdown(markdown));
const paragraphOf = (...children: Root["children"]) =>
  mdastToHtml({ type: "root", children: [{ type: "paragraph", children: children as never }] });

describe("mdastToHtml", () => {
  it("renders every block", () => {
    expect(html("# h\n\n> q\n\n- a\n- b\n\n3. c\n\n```js\nx\n```\n\n---")).toBe(
      '<h1>h</h1>\n<blockquote>\n<p>q</p>\n</blockquote>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n<ol start="3">\n<li>c</li>\n</ol>\n<pre><code class="language-js">x\n</code></pre>\n<hr>',
    );
  });

  it("renders every inline element", () => {
    expect(html('*i* **b** ~~s~~ `c` [l](http://l.example "T") ![a](/i.png "U")')).toBe(
      '<p><em>i</em> <strong>b</strong> <del>s</del> <code>c</code> <a href="http://l.example" title="T">l</a> <img src="/i.png" alt="a" title="U"></p>',
    );
  });

  it("keeps a soft break as a newline inside the paragraph and renders hard breaks as <br>", () => {
    expect(html("a\nb")).toBe("<p>a\nb</p>");
    expect(html("a  \nb\\\nc")).toBe("<p>a<br>\nb<br>\nc</p>");
  });

  it("renders tables with alignment", () => {
    expect(html("| a | b |\n|:-|-:|\n| 1 | 2 |")).toBe(
      '<table>\n<thead>\n<tr>\n<th align="left">a</th>\n<th align="right">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td align="left">1</td>\n<td align="right">2</td>\n</tr>\n</tbody>\n</table>',
    );
  });

  it("renders the excerpt break as the only comment", () => {
    expect(html("a\n\n<!--more-->\n\n<!-- other -->\n\nb")).toBe("<p>a</p>\n<!--more-->\n<p>b</p>");
    expect(mdastToHtml({ type: "root", children: [{ type: "readMore" }] })).toBe("<!--more-->");
  });
});

describe("mdastToHtml: sanitising", () => {
  it("lets no raw HTML from Markdown through, blocks or inline", () => {
    const output = html(
      '<script>alert(1)</script>\n\n<img src=x onerror="alert(1)">\n\n<iframe src="http://evil.example"></iframe>\n\na <b onclick="x()">b</b> <style>p{}</style> c',
    );
    expect(output).toBe("<p>a c</p>");
  });

  it("never renders HTML nodes even when given them directly", () => {
    const tree: Root = {
      type: "root",
      children: [
        { type: "html", value: "<script>alert(1)</script>" },
        {
          type: "paragraph",
          children: [
            { type: "html", value: '<img src=x onerror="alert(1)">' },
            { type: "text", value: "ok" },
          ],
        },
      ],
    };
    expect(mdastToHtml(tree)).toBe("<p>ok</p>");
  });

  it("strips script URLs from links and images, however they are spelt", () => {
    const urls = [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "java\tscript:alert(1)",
      " javascript:alert(1)",
      "\u0001javascript:alert(1)",
      "vbscript:msgbox(1)",
      "data:text/html;base64,PHNjcmlwdD4=",
    ];
    for (const url of urls) {
      const output = paragraphOf(
        { type: "link", url, children: [{ type: "text", value: "x" }] },
        { type: "image", url, alt: "y" },
      );
      expect(output, JSON.stringify(url)).not.toMatch(/script|data:/i);
      expect(output).toContain(">x</a>");
    }
  });

  it("strips script URLs written in Markdown, including entity-encoded ones", () => {
    const output = html(
      "[a](javascript:alert(1)) [b](<java script:alert(1)>) [c](&#106;avascript:alert(1)) [d](j&#x61;vascript:alert(1)) ![e](data:image/png;base64,AAAA) ![f](javascript:alert(1))",
    );
    expect(output).not.toMatch(/javascript|data:|href|src/i);
  });

  it("keeps safe links", () => {
    expect(html("[a](mailto:me@x.example) [b](/rel) [c](#top)")).toBe(
      '<p><a href="mailto:me@x.example">a</a> <a href="/rel">b</a> <a href="#top">c</a></p>',
    );
  });
});
