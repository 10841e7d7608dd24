import { describe, expect, it } from "vitest";
import { isReadMoreComment } from "./read-more.js";

describe("isReadMoreComment", () => {
  it("accepts the excerpt break with any whitespace and case", () => {
    for (const html of ["<!--more-->", " <!-- more -->\n", "<!--MORE-->", "<!--\tmore\t-->"]) {
      expect(isReadMoreComment(html), html).toBe(true);
    }
  });

  it("rejects other comments and anything around the break", () => {
    for (const html of ["<!-- more text -->", "<!--more--> x", "<p><!--more--></p>", "<!--nomore-->"]) {
      expect(isReadMoreComment(html), html).toBe(false);
    }
  });
});
