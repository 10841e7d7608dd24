/**
 * What the benchmarks share: reading their arguments and a size argument (`100k`, `1m`), printing
 * a size, and finding a PostgreSQL server.
 */
import { existsSync, readFileSync } from "node:fs";

/** The command line's `--name=value` arguments by name; a bare `--flag` is `"true"`. */
export function benchArgs(): Record<string, string | undefined> {
  return Object.fromEntries(
    process.argv.slice(2).map((arg) => {
      const [key = "", value] = arg.replace(/^--/, "").split("=");
      return [key, value ?? "true"];
    }),
  );
}

/** `100k` → 100,000, `1m` → 1,000,000, `500` → 500. */
export function parseSize(text: string): number {
  const match = /^(\d+)(k|m)?$/i.exec(text.trim());
  if (!match) throw new Error(`Unreadable size ${text}`);
  const unit = match[2]?.toLowerCase();
  return Number(match[1]) * (unit === "m" ? 1_000_000 : unit === "k" ? 1000 : 1);
}

/** 100,000 → `100k`, 1,000,000 → `1M`. */
export function label(size: number): string {
  return size >= 1_000_000 ? `${size / 1_000_000}M` : size >= 1000 ? `${size / 1000}k` : String(size);
}

/**
 * $QUIRE_BENCH_PG_URL, else a throwaway server of its own (scripts/postgres.mjs, so test suites on
 * the shared dev server do not disturb the figures), else the dev server in /tmp/quire-pg-url.
 */
export async function postgresUrl(): Promise<{ url: string; stop: () => Promise<void> }> {
  const keep = async () => {};
  if (process.env.QUIRE_BENCH_PG_URL) return { url: process.env.QUIRE_BENCH_PG_URL, stop: keep };
  const scripts = (await import(new URL("../scripts/postgres.mjs", import.meta.url).href)) as {
    findPostgresBin(): string | null;
    startPostgres(): Promise<{ url: string; stop(): Promise<void> }>;
  };
  if (scripts.findPostgresBin()) return scripts.startPostgres();
  if (existsSync("/tmp/quire-pg-url"))
    return { url: readFileSync("/tmp/quire-pg-url", "utf8").trim(), stop: keep };
  throw new Error("No PostgreSQL: set QUIRE_BENCH_PG_URL or install the server binaries");
}
