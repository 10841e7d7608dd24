import { describe, expect, it } from "vitest";
import { EngineError, isEngineError, toErrorBody } from "./errors.js";

describe("engine errors across copies of core", () => {
  it("recognises an engine error by its brand, not by instanceof", () => {
    // What a second copy of this module (another bundle, another version) would construct.
    class OtherCopyEngineError extends Error {
      readonly code = "CONFLICT";
      readonly details = undefined;
    }
    const foreign = Object.assign(new OtherCopyEngineError("The address /a is already in use"), {
      [Symbol.for("quire.EngineError")]: true,
    });
    expect(foreign instanceof EngineError).toBe(false);
    expect(isEngineError(foreign)).toBe(true);
    expect(toErrorBody(foreign)).toEqual({ error: "The address /a is already in use", code: "CONFLICT" });
  });

  it("does not take look-alikes or unknown codes for engine errors", () => {
    expect(isEngineError(Object.assign(new Error("x"), { code: "CONFLICT" }))).toBe(false);
    const unknownCode = { code: "TEAPOT", [Symbol.for("quire.EngineError")]: true };
    expect(isEngineError(unknownCode)).toBe(false);
    expect(toErrorBody(unknownCode)).toEqual({ error: "Internal error", code: "INTERNAL_ERROR" });
    expect(isEngineError(new EngineError("NOT_FOUND", "post x not found"))).toBe(true);
  });
});
