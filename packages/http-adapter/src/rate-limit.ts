import { EngineError, isEngineError } from "@quire/core";
import type { HandlerOptions } from "./options.js";

/**
 * Per-client request limits, counted in fixed one-minute windows in this process's memory (so per
 * worker: N workers let a client make up to N times the limit). Keyed by the client address the
 * server supplies (`clientAddress`; behind a trusted proxy, the proxy's forwarded address); a
 * request whose address is unknown counts against one shared key.
 *
 * Written here rather than taken from `rate-limiter-flexible` or `express-rate-limit`: the handler
 * runs on any Fetch runtime (Node, Workers, Deno, Bun), so it may not keep timers or Node streams,
 * and the rule it needs is twenty lines. A deployment with several processes that wants one shared
 * count passes its own {@link RateLimitStore} (for example over Redis or rate-limiter-flexible).
 * @see docs/authentication.md § Rate limits
 */
export interface RateLimitOptions {
  /** Sign-in attempts (`POST /signin`) per client per minute; default 10; 0 means no limit. */
  signInPerMinute?: number;
  /** Search requests (`GET /api/search`, and `/api/public/search` if served) per client per minute; default 0, no limit (`RATE_LIMIT_SEARCH_PER_MIN`). */
  searchPerMinute?: number;
  /** Where counts are kept; default an in-memory store per handler. */
  store?: RateLimitStore;
  /** Milliseconds since the epoch; tests pass a fixed clock. Default `Date.now`. */
  now?: () => number;
}

/** Counts hits per key in windows. */
export interface RateLimitStore {
  /** Counts one hit for `key` and answers the count in its window and when that window ends (ms). */
  hit(
    key: string,
    windowMs: number,
    now: number,
  ): Promise<{ count: number; resetAt: number }> | { count: number; resetAt: number };
}

/** What a limit is on. */
export type RateLimitKind = "signIn" | "search";

const windowMs = 60_000;
/** Keys kept before expired windows are swept out (a sweep costs one pass over the map). */
const sweepAbove = 10_000;

/** A fixed-window counter in a Map; expired windows are dropped when the map grows. */
export function memoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    hit(key, windowLength, now) {
      let entry = windows.get(key);
      if (!entry || entry.resetAt <= now) {
        if (windows.size >= sweepAbove) {
          for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k);
        }
        entry = { count: 0, resetAt: now + windowLength };
        windows.set(key, entry);
      }
      entry.count += 1;
      return { count: entry.count, resetAt: entry.resetAt };
    },
  };
}

/** The handler's limits: `check(kind, request)` throws 429 RATE_LIMITED once a client is over. */
export interface RateLimits {
  check(kind: RateLimitKind, request: Request): Promise<void>;
}

/** The limits a handler enforces, from its `rateLimit` option (`false`: none). */
export function createRateLimits(options: HandlerOptions): RateLimits {
  const config = options.rateLimit;
  if (config === false) return { check: async () => {} };
  const limits: Record<RateLimitKind, number> = {
    signIn: config?.signInPerMinute ?? 10,
    search: config?.searchPerMinute ?? 0,
  };
  const store = config?.store ?? memoryRateLimitStore();
  const now = config?.now ?? Date.now;
  return {
    async check(kind, request) {
      const limit = limits[kind];
      if (!(limit > 0)) return;
      const client = options.clientAddress?.(request) ?? "unknown";
      const at = now();
      const { count, resetAt } = await store.hit(`${kind}:${client}`, windowMs, at);
      if (count <= limit) return;
      const retryAfterSeconds = Math.max(1, Math.ceil((resetAt - at) / 1000));
      throw new EngineError(
        "RATE_LIMITED",
        `Too many ${kind === "signIn" ? "sign-in attempts" : "searches"}; try again in ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    },
  };
}

/** The search routes the search limit covers: `GET /api/search`, and any `…/search` under `/api/public`. */
export function isSearchRoute(routePath: string): boolean {
  return (
    routePath === "/api/search" || (routePath.startsWith("/api/public/") && routePath.endsWith("/search"))
  );
}

/** Sets `Retry-After` on the answer to a RATE_LIMITED error (RFC 9110 § 10.2.3). */
export function setRetryAfter(response: Response, err: unknown): void {
  if (!isEngineError(err) || err.code !== "RATE_LIMITED") return;
  const seconds = err.details?.retryAfterSeconds;
  if (typeof seconds === "number") response.headers.set("retry-after", String(seconds));
}
