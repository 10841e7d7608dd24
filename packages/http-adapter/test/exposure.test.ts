import { operationGroups } from "@quire/core";
import { describe, expect, it } from "vitest";
import * as httpAdapter from "../src/index.js";
import { routes } from "../src/routes.js";

describe("exposure", () => {
  it("routes only to operations that exist", () => {
    const ids = new Set(
      Object.values(operationGroups).flatMap((group) => Object.values(group).map((op) => op.id)),
    );
    for (const route of routes) expect(ids, `${route.method} ${route.path}`).toContain(route.operation);
  });

  it("lists which operations have an HTTP route (changes are visible diffs)", () => {
    const lines = routes.map((route) => `${route.method} ${route.path} -> ${route.operation}`).sort();
    expect(lines).toMatchSnapshot();
  });

  it("keeps the package's public surface deliberate", () => {
    expect(Object.keys(httpAdapter).sort()).toMatchSnapshot();
  });
});
