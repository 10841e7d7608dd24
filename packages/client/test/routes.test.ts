import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { routes } from "../../http-adapter/src/routes.js";
import { routeTable } from "../src/routes.js";
import { renderRouteTable } from "./render-routes.js";

describe("the client's route table", () => {
  it("is the HTTP adapter's route table as generated (run `pnpm --filter @quire/client generate`)", () => {
    const source = readFileSync(new URL("../src/routes.ts", import.meta.url), "utf8");
    expect(source).toBe(renderRouteTable(routes));
  });

  it("has every route of each routed operation, in order, with the adapter's method, path, input source and status", () => {
    expect(new Set(Object.keys(routeTable))).toEqual(new Set(routes.map((route) => route.operation)));
    for (const [operation, entries] of Object.entries(routeTable)) {
      expect(entries).toEqual(
        routes
          .filter((route) => route.operation === operation)
          .map((route) => ({
            method: route.method,
            path: route.path,
            input: route.input,
            ...(route.status === undefined ? {} : { status: route.status }),
          })),
      );
    }
  });
});
