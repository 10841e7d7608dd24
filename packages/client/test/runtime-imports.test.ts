import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const sourceDir = new URL("../src/", import.meta.url);

describe("the client's runtime", () => {
  it("imports nothing but its own modules (core and zod only as types)", () => {
    const files = readdirSync(sourceDir).filter((name) => name.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const source = readFileSync(new URL(file, sourceDir), "utf8");
      const runtimeImports = [
        ...source.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms),
      ].map((match) => match[1]);
      for (const specifier of runtimeImports)
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\//);
    }
  });
});
