import type { Logger } from "@quire/core";

/** A {@link Logger} writing one JSON object per line: `{ time, level, message, ...fields }`. */
export function createJsonLogger(
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  };
  return { info: log("info"), warn: log("warn"), error: log("error") };
}
