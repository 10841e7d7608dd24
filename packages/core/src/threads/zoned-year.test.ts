import { describe, expect, it } from "vitest";
import { EngineError } from "../errors.js";
import { zonedYearBounds } from "./zoned-year.js";

describe("zonedYearBounds", () => {
  it("is the UTC calendar year in UTC", () => {
    expect(zonedYearBounds(2024, "UTC")).toEqual({
      start: Date.UTC(2024, 0, 1) / 1000,
      end: Date.UTC(2025, 0, 1) / 1000,
    });
  });

  it("starts at local midnight east and west of Greenwich, DST or not", () => {
    // Tokyo is UTC+9 all year: 2024 starts at 2023-12-31T15:00Z.
    expect(zonedYearBounds(2024, "Asia/Tokyo").start).toBe(Date.UTC(2023, 11, 31, 15) / 1000);
    // New York is UTC-5 in January (DST only in summer).
    expect(zonedYearBounds(2024, "America/New_York")).toEqual({
      start: Date.UTC(2024, 0, 1, 5) / 1000,
      end: Date.UTC(2025, 0, 1, 5) / 1000,
    });
    // Half-hour and southern-summer (DST in January) zones.
    expect(zonedYearBounds(2024, "Asia/Kolkata").start).toBe(Date.UTC(2023, 11, 31, 18, 30) / 1000);
    expect(zonedYearBounds(2024, "Australia/Sydney").start).toBe(Date.UTC(2023, 11, 31, 13) / 1000);
  });

  it("reports an unknown zone as a configuration error", () => {
    expect(() => zonedYearBounds(2024, "Mars/Olympus")).toThrow(EngineError);
    try {
      zonedYearBounds(2024, "Mars/Olympus");
    } catch (err) {
      expect((err as EngineError).code).toBe("CONFIGURATION_ERROR");
    }
  });
});
