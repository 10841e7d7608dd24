import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../render/index.js";
import { entitiesToMarkdown } from "./entities.js";

/**
 * Texts and entities as the Bot API sends them for the formatting examples of its documentation
 * (https://core.telegram.org/bots/api#formatting-options: bold, italic, underline, strikethrough,
 * spoiler, inline URL, inline code, pre with a language, block quotation), offsets in UTF-16.
 */
describe("entitiesToMarkdown", () => {
  it("marks bold, italic and strikethrough, nested, and leaves underline and spoiler as text", () => {
    // *bold _italic bold ~italic bold strikethrough~ __underline italic bold___ bold*
    const text = "bold italic bold italic bold strikethrough underline italic bold bold";
    expect(
      entitiesToMarkdown(text, [
        { type: "bold", offset: 0, length: 69 },
        { type: "italic", offset: 5, length: 59 },
        { type: "strikethrough", offset: 17, length: 25 },
        { type: "underline", offset: 43, length: 21 },
      ]),
    ).toBe("**bold *italic bold ~~italic bold strikethrough~~ underline italic bold* bold**");
    expect(entitiesToMarkdown("spoiler", [{ type: "spoiler", offset: 0, length: 7 }])).toBe("spoiler");
  });

  it("counts offsets in UTF-16 code units (an emoji is two)", () => {
    expect(entitiesToMarkdown("👍 Great news", [{ type: "bold", offset: 3, length: 5 }])).toBe(
      "👍 **Great** news",
    );
    expect(entitiesToMarkdown("𝒜 and b", [{ type: "italic", offset: 7, length: 1 }])).toBe("𝒜 and *b*");
  });

  it("writes links, URLs, e-mail addresses, inline code and code blocks", () => {
    expect(
      entitiesToMarkdown("inline URL", [
        { type: "text_link", offset: 0, length: 10, url: "http://www.example.com/" },
      ]),
    ).toBe("[inline URL](http://www.example.com/)");
    expect(entitiesToMarkdown("see https://t.me/x_y", [{ type: "url", offset: 4, length: 16 }])).toBe(
      "see <https://t.me/x_y>",
    );
    expect(entitiesToMarkdown("go to example.com", [{ type: "url", offset: 6, length: 11 }])).toBe(
      "go to [example.com](https://example.com)",
    );
    expect(entitiesToMarkdown("mail a@b.org", [{ type: "email", offset: 5, length: 7 }])).toBe(
      "mail <a@b.org>",
    );
    expect(
      entitiesToMarkdown("a tg link", [{ type: "text_link", offset: 2, length: 2, url: "tg://user?id=1" }]),
    ).toBe("a tg link");
    expect(entitiesToMarkdown("inline fixed-width code", [{ type: "code", offset: 0, length: 23 }])).toBe(
      "`inline fixed-width code`",
    );
    expect(entitiesToMarkdown("run a`b now", [{ type: "code", offset: 4, length: 3 }])).toBe(
      "run ``a`b`` now",
    );
    const pre = "pre-formatted fixed-width code block written in the Python programming language";
    expect(
      entitiesToMarkdown(`Code:\n${pre}\nDone *`, [
        { type: "pre", offset: 6, length: pre.length, language: "python" },
      ]),
    ).toBe(`Code:\n\n\`\`\`python\n${pre}\n\`\`\`\n\nDone \\*`);
  });

  it("quotes a block quotation line by line", () => {
    const text = "Before\nBlock quotation started\nBlock quotation continued\nAfter";
    expect(entitiesToMarkdown(text, [{ type: "blockquote", offset: 7, length: 49 }])).toBe(
      "Before\n\n> Block quotation started\\\n> Block quotation continued\n\nAfter",
    );
  });

  it("escapes Markdown in plain text so it reads as the same text", () => {
    const text = "2 * 3 = 6, a_b [x](y) <b> ~x~ `c`\n# not a heading\n- not a list\n1. not a list";
    const markdown = entitiesToMarkdown(text, []);
    expect(markdown).toBe(
      "2 \\* 3 = 6, a\\_b \\[x\\](y) \\<b\\> \\~x\\~ \\`c\\`\\\n\\# not a heading\\\n\\- not a list\\\n1\\. not a list",
    );
    expect(renderMarkdown(markdown).text.replace(/\s+/g, " ").trim()).toBe(text.replace(/\s+/g, " "));
  });

  it("keeps emphasis marks next to the text (whitespace moves outside) and drops entities outside the text", () => {
    expect(entitiesToMarkdown("bold text", [{ type: "bold", offset: 0, length: 5 }])).toBe("**bold** text");
    expect(entitiesToMarkdown("short", [{ type: "bold", offset: 3, length: 50 }])).toBe("sho**rt**");
    expect(
      entitiesToMarkdown("short", [
        { type: "bold", offset: 9, length: 2 },
        { type: "italic", offset: -1, length: 2 },
      ]),
    ).toBe("short");
    // Entities that cross: the inner one is cut at the outer one's end.
    expect(
      entitiesToMarkdown("abcdef", [
        { type: "bold", offset: 0, length: 4 },
        { type: "italic", offset: 2, length: 4 },
      ]),
    ).toBe("**ab*cd***ef");
  });

  it("renders to the HTML the entities meant", () => {
    const markdown = entitiesToMarkdown("Bold and italics, strike", [
      { type: "italic", offset: 9, length: 7 },
      { type: "bold", offset: 0, length: 4 },
      { type: "strikethrough", offset: 18, length: 6 },
    ]);
    const html = renderMarkdown(markdown).html;
    expect(html).toContain("<strong>Bold</strong>");
    expect(html).toContain("<em>italics</em>");
    expect(html).toContain("<del>strike</del>");
  });
});
