import fc from "fast-check";
import type { Root } from "mdast";
import { describe, expect, it } from "vitest";
import { markdownBody } from "../../../../bench/write-body.js";
import {
  commonMarkExamples,
  gfmCases,
  pathologicalBodies,
  randomBodies,
  renderedVia,
  renderTestStrings,
  routeOf,
  tableBodies,
} from "./markdown-differential.js";
import { fastParse, needsMicromark } from "./markdown-it-to-mdast.js";

/** The bodies whose rendering differs between the route parseMarkdown picks and micromark. */
function differences(bodies: string[], change?: (tree: Root) => void): string[] {
  return bodies.filter((markdown) => {
    const picked = renderedVia(markdown, undefined, { change });
    return picked !== renderedVia(markdown, "micromark");
  });
}

function routes(bodies: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const markdown of bodies) counts[routeOf(markdown)] = (counts[routeOf(markdown)] ?? 0) + 1;
  return counts;
}

describe("the fast Markdown parse against micromark", { timeout: 180_000 }, () => {
  it("gives the same editor document for every CommonMark spec example", () => {
    const examples = commonMarkExamples();
    expect(examples.length).toBeGreaterThan(600);
    expect(differences(examples)).toEqual([]);
    // Nine in ten of them take the fast route (593 of 652 when this was written).
    expect(routes(examples).fast).toBeGreaterThan(550);
  });

  it("gives the same for GFM cases: tables, strikethrough, autolink literals, footnotes, tasks, HTML", () => {
    expect(differences(gfmCases)).toEqual([]);
  });

  it("gives the same for every string in the render tests", () => {
    expect(differences(renderTestStrings())).toEqual([]);
  });

  it("gives the same for the pathological inputs at small sizes, refusals included", () => {
    expect(differences(pathologicalBodies([100, 1_000]))).toEqual([]);
  });

  it("gives the same for the benchmark body, always by the fast route", () => {
    const bodies = Array.from({ length: 300 }, (_, n) => markdownBody(n));
    expect(differences(bodies)).toEqual([]);
    expect(routes(bodies)).toEqual({ fast: 300 });
  });

  // Thousands of generated Markdown-ish bodies, by both routes, in parts (each takes seconds).
  for (const seed of [1, 2, 3]) {
    it(`gives the same for 2,000 generated bodies (seed ${seed}), by both routes`, () => {
      const bodies = randomBodies(seed, 2_000, 40);
      expect(differences(bodies)).toEqual([]);
      const counted = routes(bodies);
      expect(counted.fast).toBeGreaterThan(200);
      expect(counted.micromark).toBeGreaterThan(300);
    });
  }
  // Without the pieces that always go to micromark, so that more take the fast route.
  for (const seed of [4, 5]) {
    it(`gives the same for 2,000 generated bodies (seed ${seed}) made to take the fast route`, () => {
      const bodies = randomBodies(seed, 2_000, 40, true);
      expect(differences(bodies)).toEqual([]);
      expect(routes(bodies).fast).toBeGreaterThan(500);
    });
  }

  it("gives the same for generated tables and near misses, all read by micromark", () => {
    const bodies = tableBodies(1, 500);
    expect(differences(bodies)).toEqual([]);
    expect(routes(bodies)).toEqual({ micromark: 500 });
  });

  it("would catch a converter that is wrong", () => {
    // The same comparison, with the fast tree deliberately changed: strikethrough read as emphasis.
    const strikeAsEmphasis = (tree: Root) => {
      const pending: unknown[] = [tree];
      for (
        let node = pending.pop() as { type: string; children?: unknown[] } | undefined;
        node;
        node = pending.pop() as typeof node
      ) {
        if (node.type === "delete") node.type = "emphasis";
        if (node.children) pending.push(...node.children);
      }
    };
    expect(differences(gfmCases, strikeAsEmphasis).length).toBeGreaterThan(3);
    expect(differences(["a ~~b~~ c", "plain text"], strikeAsEmphasis)).toEqual(["a ~~b~~ c"]);
  });
});

describe("routing", () => {
  it("sends what the fast parse does not read as micromark does to micromark", () => {
    for (const markdown of [
      "Note[^1].\n\n[^1]: x",
      "- [ ] task",
      "| a |\n| - |\n| b |",
      "a\r\nb",
      "```\nopen at the end\n  ",
      "~~~ js\nx\n~~~",
      "[a]: /u\n    b",
      "<!-- a -->\n\n<!-- b -->",
      "> a\n</b>",
      "    code\n2) a",
      "    code\n\n- a",
      "para\n> 01. item",
      "~~~ \nx\n~~~",
      "<b>\u00a0",
      "[ref][|\n\n[ref]: /u",
      "a\t  \nb",
      "un*frigging*believable",
      "a <? b <!-- c -->",
    ]) {
      expect(needsMicromark(markdown) || fastParse(markdown) === undefined).toBe(true);
      expect(routeOf(markdown)).toBe("micromark");
    }
  });

  it("reads typical posts by the fast route", () => {
    for (const markdown of [
      "# Title\n\nSome *text* with a [link](https://example.com) and https://example.org.\n\n- a\n- b\n\n1. one\n2. two",
      '```ts\nconst x = 1;\n```\n\n> quoted **bold** and `code`\n\n![alt](/img.png "t")\n\n---\n\n<!--more-->\n\nmore',
      "Mail me@example.com or see www.example.com/path. ~~gone~~ ~also~",
    ]) {
      expect(routeOf(markdown)).toBe("fast");
    }
  });

  it("routes exactly as the expressions the routing checks were split from", () => {
    // needsMicromark's checks as they stood before they were split for speed (one expression of
    // alternatives each, every line start tried): the split ones must match the same bodies.
    const original = (markdown: string) =>
      /\[\^|\[[ \t\r\nxX]\]|\r|\0|(?:^|\n)[ \t]+$|<!--[\s\S]*<!--|\t[ \t]*\n/.test(markdown) ||
      /^[ \t>]*~{3,}[^\n~]*[^\n~]|^[ \t>]*`{3,}[^\n]*[ \t]$|<(?:[^\n]*[^\S\n \t]|[^\n]*[ \t]$)|\]\[[^\]\n]*$/m.test(
        markdown,
      ) ||
      /^[ \t>]*(?=[^\n]*-)(?=[^\n]*[|:])[-|: \t]+$/m.test(markdown) ||
      (/^[ \t]*(?:>|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$))/m.test(markdown) &&
        /[^\n]\n[ \t>]*</.test(markdown)) ||
      /^[ \t]*>[^\n]*\n(?: {4}|[ ]{0,3}\t)/m.test(markdown);
    // Bodies without a link reference definition (the one check left as it was) from the
    // characters the expressions look for. A line separator (U+2028) now sends a body to micromark
    // outright, where the expressions took it for a line end.
    const characters = [..."ab1 \t\n\r>-|:~`<[]^xX!*+.)\u00a0\u2028"];
    const body = fc
      .array(fc.constantFrom(...characters), { maxLength: 40 })
      .map((chars) => chars.join(""))
      .filter((markdown) => !markdown.includes("]:"));
    fc.assert(
      fc.property(body, (markdown) =>
        /[\u2028\u2029]/.test(markdown)
          ? needsMicromark(markdown)
          : needsMicromark(markdown) === original(markdown),
      ),
      { numRuns: 20_000 },
    );
    for (const bodies of [commonMarkExamples(), gfmCases, tableBodies(7, 300), randomBodies(11, 300, 400)]) {
      for (const markdown of bodies.filter((text) => !text.includes("]:"))) {
        expect(needsMicromark(markdown), JSON.stringify(markdown)).toBe(original(markdown));
      }
    }
  });
});
