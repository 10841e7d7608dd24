import type { Root } from "mdast";
import { describe, expect, it } from "vitest";
import { linkBareUrls } from "./link-bare-urls.js";

describe("linkBareUrls", () => {
  it("links URLs, www addresses and e-mail addresses in plain text, not in code or existing links", () => {
    const tree: Root = {
      type: "root",
      children: [
        {
          type: "paragraph",
          children: [
            { type: "text", value: "see https://a.example and www.b.example or me@c.example " },
            { type: "inlineCode", value: "https://code.example" },
            { type: "link", url: "/x", children: [{ type: "text", value: "https://d.example" }] },
          ],
        },
      ],
    };
    linkBareUrls(tree);
    const links = JSON.stringify(tree).match(/"url":"[^"]+"/g);
    expect(links).toEqual([
      '"url":"https://a.example"',
      '"url":"http://www.b.example"',
      '"url":"mailto:me@c.example"',
      '"url":"/x"',
    ]);
  });
});
