import { describe, expect, it } from "vitest";
import { renderMarkdown } from "./index.js";

// A hang fails these tests by their timeout; no timing is asserted.
describe("the nesting guard runs in linear time (a backtracking regex hung the server)", () => {
  it("renders 50 stacked quote markers before text, the 200-byte body that hung the server", {
    timeout: 10_000,
  }, () => {
    const body = `${"> ".repeat(50)}x`;
    expect(renderMarkdown(body).text).toContain("x");
  });

  it("still refuses a line that opens 100 containers, whatever the markers", { timeout: 10_000 }, () => {
    for (const marker of ["> ", "- ", "* ", "1. ", "2) ", ">"]) {
      expect(() => renderMarkdown(`${marker.repeat(100)}x`), marker).toThrow(
        expect.objectContaining({ code: "VALIDATION_ERROR" }),
      );
    }
  });
});
