import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as core from "./index.js";
import * as testing from "./testing/index.js";

describe("@quire/core exports", () => {
  it("keeps the public surface deliberate", () => {
    expect(Object.keys(core).sort()).toMatchSnapshot();
    expect(Object.keys(testing).sort()).toMatchSnapshot();
  });

  it("defines every operation once with a unique dotted id, a description and hints that agree", () => {
    const ids = core.operations.map((op) => op.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of core.operations) {
      expect(op.id).toMatch(/^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/);
      expect(op.description.length, op.id).toBeGreaterThan(10);
      expect(op.description.length, op.id).toBeLessThanOrEqual(120);
      // A read changes nothing, so it cannot also be destructive.
      if (op.hints?.readOnly) expect(op.hints.destructive, op.id).toBeFalsy();
    }
  });
});

describe("@quire/core's main entry", () => {
  it("loads no Node-only module but node:crypto, so it bundles for a Worker or an edge runtime", () => {
    const seen = new Set<string>();
    const nodeModules = new Set<string>();
    const visit = (file: URL) => {
      if (seen.has(file.href)) return;
      seen.add(file.href);
      const source = readFileSync(file, "utf8");
      // Runtime imports and re-exports only: `import type` and `export type` load nothing.
      for (const [, specifier] of source.matchAll(
        /^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms,
      )) {
        if (specifier?.startsWith("node:"))
          nodeModules.add(`${specifier} (${file.pathname.split("/src/")[1]})`);
        else if (specifier?.startsWith(".")) visit(new URL(specifier.replace(/\.js$/, ".ts"), file));
      }
    };
    visit(new URL("./index.ts", import.meta.url));
    expect(seen.size).toBeGreaterThan(100);
    expect([...nodeModules].filter((name) => !name.startsWith("node:crypto "))).toEqual([]);
  });
});
