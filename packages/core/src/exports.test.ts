import { describe, expect, it } from "vitest";
import * as core from "./index.js";
import * as testing from "./testing/index.js";

describe("@quire/core exports", () => {
  it("keeps the public surface deliberate", () => {
    expect(Object.keys(core).sort()).toMatchSnapshot();
    expect(Object.keys(testing).sort()).toMatchSnapshot();
  });

  it("defines every operation once with a unique dotted id", () => {
    const ids = Object.values(core.operationGroups).flatMap((group) =>
      Object.values(group).map((op) => op.id),
    );
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/);
  });
});
