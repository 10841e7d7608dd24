import { EngineError } from "../errors.js";

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * The Unix-second bounds `[start, end)` of a calendar year in an IANA time zone: from local
 * midnight on 1 January to local midnight on the next 1 January. The Thread list's `year` filter
 * compares `published_at` against them, so the query stays a range on an indexed column.
 * @see docs/threads.md § Year and time zone
 */
export function zonedYearBounds(year: number, timeZone: string): { start: number; end: number } {
  return { start: zonedNewYear(year, timeZone), end: zonedNewYear(year + 1, timeZone) };
}

/** Local midnight of 1 January `year` in `timeZone`, as Unix seconds. */
function zonedNewYear(year: number, timeZone: string): number {
  const wallClock = Date.UTC(year, 0, 1);
  // The offset at the wall-clock instant is right except across a transition; one correction fixes that.
  let instant = wallClock - offsetMs(wallClock, timeZone);
  const corrected = offsetMs(instant, timeZone);
  if (wallClock - corrected !== instant) instant = wallClock - corrected;
  return Math.floor(instant / 1000);
}

/** How far local time in `timeZone` is ahead of UTC at `instant` (ms). */
function offsetMs(instant: number, timeZone: string): number {
  const parts = formatFor(timeZone).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  const era = parts.find((p) => p.type === "era")?.value;
  const year = era === "BC" || era === "B" ? 1 - part("year") : part("year");
  const local = Date.UTC(year, part("month") - 1, part("day"), part("hour"), part("minute"), part("second"));
  // The parts carry whole seconds, so compare against the instant's whole second.
  return local - Math.floor(instant / 1000) * 1000;
}

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat("en-US", {
        timeZone,
        hourCycle: "h23",
        era: "short",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      throw new EngineError("CONFIGURATION_ERROR", `Unknown time zone ${timeZone}`);
    }
    formats.set(timeZone, format);
  }
  return format;
}
