import * as z from "zod";
import type { Clock } from "../deps.js";

/** Integer Unix seconds (non-negative). */
export const unixSeconds = z.number().int().min(0).max(253402300799);

/** The wall clock in integer Unix seconds. */
export function systemClock(): Clock {
  return { now: () => Math.floor(Date.now() / 1000) };
}

/** A clock that stands still at `at` until moved; for tests. */
export function fixedClock(
  at = 1_700_000_000,
): Clock & { set(value: number): void; advance(seconds: number): void } {
  let current = at;
  return {
    now: () => current,
    set: (value) => {
      current = value;
    },
    advance: (seconds) => {
      current += seconds;
    },
  };
}
