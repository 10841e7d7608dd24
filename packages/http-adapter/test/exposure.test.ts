import { readFileSync } from "node:fs";
import { operations } from "@quire/core";
import { describe, expect, it } from "vitest";
import * as httpAdapter from "../src/index.js";
import { inProcessOnly, routes } from "../src/routes.js";

describe("exposure", () => {
  it("routes only to operations that exist", () => {
    const ids = new Set<string>(operations.map((op) => op.id));
    for (const route of routes) expect(ids, `${route.method} ${route.path}`).toContain(route.operation);
  });

  it("gives every operation a route, or documents it as in-process only", () => {
    const routed = new Set<string>(routes.map((route) => route.operation));
    const embedding = readFileSync(new URL("../../../docs/embedding.md", import.meta.url), "utf8");
    for (const op of operations) {
      if (routed.has(op.id)) continue;
      expect(inProcessOnly, `${op.id} has no route`).toContain(op.id);
      expect(embedding, `${op.id} is in-process only but docs/embedding.md does not say so`).toContain(
        `\`${op.id}\``,
      );
    }
  });

  it("serves public operations under /api/public (or outside /api) and internal ones under /api/internal", () => {
    const access = new Map(operations.map((op) => [op.id as string, op.access]));
    // Public by the spec outside /api/public: discovery (§ Authentication rule 5) and the inbound
    // webhooks, which check their own secret header or signature (docs/telegram.md, docs/github-sync.md).
    const publicElsewhere = new Set([
      "GET /api/discover/posts",
      "POST /api/telegram",
      "POST /api/github-sync/webhook",
    ]);
    for (const route of routes) {
      // The reader's documents (feeds, sitemap.xml, robots.txt) live outside /api and are public too.
      const expected =
        route.path.startsWith("/api/public/") ||
        !route.path.startsWith("/api/") ||
        publicElsewhere.has(`${route.method} ${route.path}`)
          ? "public"
          : route.path.startsWith("/api/internal/")
            ? "internal"
            : "owner";
      expect(access.get(route.operation), `${route.method} ${route.path}`).toBe(expected);
    }
  });

  it("lists which operations have an HTTP route (changes are visible diffs)", () => {
    const lines = routes.map((route) => `${route.method} ${route.path} -> ${route.operation}`).sort();
    expect(lines).toMatchSnapshot();
  });

  it("keeps the package's public surface deliberate", () => {
    expect(Object.keys(httpAdapter).sort()).toMatchSnapshot();
  });
});
