import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { operations } from "../../core/src/engine.js";
import { routes } from "../../http-adapter/src/routes.js";
import { routeTable } from "../src/routes.js";
import { cursorListIds, renderRouteTable } from "./render-routes.js";

describe("the client's route table", () => {
  it("is the HTTP adapter's route table as generated (run `pnpm --filter @quire/client generate`)", () => {
    const source = readFileSync(new URL("../src/routes.ts", import.meta.url), "utf8");
    expect(source).toBe(renderRouteTable(routes, cursorListIds(operations)));
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
            ...(cursorListIds(operations).has(operation) ? { cursor: true } : {}),
          })),
      );
    }
  });

  it("marks the spec's cursor lists, and only them", () => {
    const marked = Object.entries(routeTable)
      .filter(([, entries]) => entries.some((entry) => "cursor" in entry))
      .map(([operation]) => operation);
    expect(marked.sort()).toEqual(
      [
        "posts.list",
        "threads.list",
        "threads.listPosts",
        "publicThreads.list",
        "publicThreads.listPosts",
        "media.list",
        "customUrls.list",
        "smartCollections.listThreads",
        "publicSmartCollections.listThreads",
      ].sort(),
    );
  });
});
