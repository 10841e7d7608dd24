import { describe, expect, it } from "vitest";
import { EngineError } from "../errors.js";
import { decodeCursor, encodeCursor } from "./cursor.js";

describe("cursors", () => {
  it("round-trip their keys for the same order", () => {
    const cursor = encodeCursor({ order: "posts.published", keys: [123, "pst_x", null] });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, "posts.published", 3)).toEqual([123, "pst_x", null]);
  });

  it("refuse other orders, wrong shapes, garbage and IDs with a 400", () => {
    const cursor = encodeCursor({ order: "a", keys: [1] });
    const bad = [
      () => decodeCursor(cursor, "b", 1),
      () => decodeCursor(cursor, "a", 2),
      () => decodeCursor("%%%", "a", 1),
      () => decodeCursor("pst_01h2xcejqtf2nbrexx3vqjhp41", "a", 1),
      () => decodeCursor("med_01h2xcejqtf2nbrexx3vqjhp41", "a", 1),
      () => decodeCursor(btoa("[1,2]"), "a", 1),
      () => decodeCursor(btoa(JSON.stringify({ o: "a", k: [{}] })), "a", 1),
    ];
    for (const attempt of bad) {
      expect(attempt).toThrow(EngineError);
      try {
        attempt();
      } catch (err) {
        expect((err as EngineError).code).toBe("VALIDATION_ERROR");
      }
    }
  });
});
