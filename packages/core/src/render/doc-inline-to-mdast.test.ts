import { describe, expect, it } from "vitest";
import { docInlineToMdast } from "./doc-inline-to-mdast.js";
import { mdastToMarkdown } from "./to-markdown.js";

const text = (value: string, ...marks: object[]) => ({ type: "text", text: value, marks });
const br = (...marks: object[]) => ({ type: "hardBreak", marks });
const bold = { type: "bold" };
const italic = { type: "italic" };
const link = (href: string, title?: string) => ({ type: "link", attrs: title ? { href, title } : { href } });
const markdownOf = (...content: object[]) =>
  mdastToMarkdown({
    type: "root",
    children: [{ type: "paragraph", children: docInlineToMdast(content as never, "paragraph") }],
  });

describe("docInlineToMdast", () => {
  it("maps every mark", () => {
    expect(
      markdownOf(
        text("b", bold),
        text(" "),
        text("i", italic),
        text(" "),
        text("s", { type: "strike" }),
        text(" "),
        text("c", { type: "code" }),
        text(" "),
        text("l", link("/l", "T")),
      ),
    ).toBe('**b** *i* ~~s~~ `c` [l](/l "T")');
  });

  it("nests marks in one order and keeps a mark open across neighbours that share it", () => {
    expect(
      docInlineToMdast([text("a", bold), text("b", bold, italic), text("c", bold)] as never, "paragraph"),
    ).toEqual([
      {
        type: "strong",
        children: [
          { type: "text", value: "a" },
          { type: "emphasis", children: [{ type: "text", value: "b" }] },
          { type: "text", value: "c" },
        ],
      },
    ]);
    expect(markdownOf(text("a", link("/x")), text("b", bold, link("/x")))).toBe("[a**b**](/x)");
    expect(markdownOf(text("a", link("/x")), text("b", link("/y")))).toBe("[a](/x)[b](/y)");
  });

  it("puts code innermost and ignores a duplicate mark", () => {
    expect(markdownOf(text("x", { type: "code" }, bold, bold))).toBe("**`x`**");
  });

  it("keeps soft line breaks as newlines and hard breaks as a backslash break", () => {
    expect(markdownOf(text("a\nb"), br(), text("c"))).toBe("a\nb\\\nc");
    expect(markdownOf(text("a", bold), br(bold), text("b", bold))).toBe("**a\\\nb**");
  });

  it("drops whitespace Markdown would lose: at line edges, blank lines, breaks at either end", () => {
    expect(markdownOf(text("  a  \n\n  b \r\n c  "))).toBe("a\nb\nc");
    expect(markdownOf(br(), text(" a "), br(), text(" b"), br())).toBe("a\\\nb");
    expect(markdownOf(text("a\n"), br(), text("\nb"))).toBe("a\\\nb");
  });

  it("keeps two hard breaks in a row", () => {
    expect(markdownOf(text("a"), br(), br(), text("b"))).toBe("a\\\n\\\nb");
  });

  it("moves whitespace at the edges of emphasis outside it", () => {
    expect(markdownOf(text("a"), text(" b ", bold), text("c"))).toBe("a **b** c");
    expect(markdownOf(text("a"), text(" b ", italic, link("/l")), text("c"))).toBe("a[ *b* ](/l)c");
  });

  it("turns newlines in inline code into spaces", () => {
    expect(markdownOf(text("a\nb", { type: "code" }))).toBe("`a b`");
  });

  it("writes breaks and newlines as spaces in headings and cells", () => {
    const heading = docInlineToMdast([text("a"), br(), text("b\nc")] as never, "heading");
    expect(heading).toEqual([{ type: "text", value: "a b c" }]);
    const cell = docInlineToMdast([text("a\n\n"), br(), text("b")] as never, "cell");
    expect(cell).toEqual([{ type: "text", value: "a b" }]);
  });

  it("maps inline images with their attributes and a link mark", () => {
    expect(
      markdownOf({ type: "image", attrs: { src: "/i.png", alt: "A", title: "T" }, marks: [link("/l")] }),
    ).toBe('[![A](/i.png "T")](/l)');
  });
});
