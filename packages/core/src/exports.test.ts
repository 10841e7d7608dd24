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
