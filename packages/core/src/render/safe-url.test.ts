import { describe, expect, it } from "vitest";
import { isSafeUrl } from "./safe-url.js";

describe("isSafeUrl", () => {
  it("allows web, mail and relative URLs in links", () => {
    for (const url of [
      "http://a.example",
      "HTTPS://a.example",
      "mailto:me@a.example",
      "/path",
      "page.html",
      "#top",
      "?q=1",
      "//cdn.example/x",
      "",
      "a/b:c",
    ]) {
      expect(isSafeUrl(url, "href"), url).toBe(true);
    }
  });

  it("rejects script and data URLs however they are spelt", () => {
    const unsafe = [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "java\nscript:alert(1)",
      "\u0001javascript:alert(1)",
      "vbscript:msgbox(1)",
      "data:text/html;base64,PHNjcmlwdD4=",
      "file:///etc/passwd",
    ];
    for (const url of unsafe) expect(isSafeUrl(url, "href"), JSON.stringify(url)).toBe(false);
  });

  it("allows only web and relative URLs for images", () => {
    expect(isSafeUrl("https://a.example/x.png", "src")).toBe(true);
    expect(isSafeUrl("/x.png", "src")).toBe(true);
    expect(isSafeUrl("mailto:me@a.example", "src")).toBe(false);
    expect(isSafeUrl("data:image/png;base64,AAAA", "src")).toBe(false);
  });
});
