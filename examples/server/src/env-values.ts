import { isIP } from "node:net";

/** A startup configuration problem; the message starts with the variable's name. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
    this.name = "ConfigError";
  }
}

/** Environment variables as the process sees them. */
export type Env = Record<string, string | undefined>;

/** Reads variables; an empty value counts as unset (except where a reader says otherwise). */
export function reader(env: Env): (name: string) => string | undefined {
  return (name) => {
    const value = env[name];
    return value === undefined || value === "" ? undefined : value;
  };
}

/** A switch: exactly `true` or `false`. @see spec § Limits (startup configuration) */
export function parseSwitch(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new ConfigError(name, `must be exactly "true" or "false" (got ${JSON.stringify(value)})`);
}

/** A base-10 integer within `[min, max]`. */
export function parseInteger(
  name: string,
  value: string | undefined,
  range: { min: number; max: number; fallback: number },
): number {
  if (value === undefined) return range.fallback;
  const number = /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < range.min || number > range.max) {
    throw new ConfigError(
      name,
      `must be an integer from ${range.min} to ${range.max} (got ${JSON.stringify(value)})`,
    );
  }
  return number;
}

/** One of a fixed set of words. */
export function parseChoice<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(name, `must be one of ${choices.join(", ")} (got ${JSON.stringify(value)})`);
}

/**
 * An origin: `http(s)://host[:port]`, optionally with a trailing "/", and nothing else (no path,
 * query, fragment or credentials). Returns the normalised origin without the slash.
 */
export function parseOrigin(name: string, value: string): string {
  const fail = (problem: string) => new ConfigError(name, `${problem} (got ${JSON.stringify(value)})`);
  if (!URL.canParse(value)) throw fail("must be an origin such as https://example.com");
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw fail("must use http or https");
  if (url.username || url.password) throw fail("must not contain credentials");
  if (url.pathname !== "/") throw fail("must not have a path (put a subpath in SITE_PATH_PREFIX)");
  if (value.includes("?") || value.includes("#")) throw fail("must not have a query or fragment");
  return url.origin;
}

/** A site path prefix: "" or `/segment[/segment…]` without a trailing slash. */
export function parsePathPrefix(name: string, value: string | undefined): string {
  if (value === undefined) return "";
  const segments = value.split("/").slice(1);
  const valid =
    value.startsWith("/") &&
    segments.every((segment) => /^[A-Za-z0-9._~-]+$/.test(segment) && segment !== "." && segment !== "..");
  if (!valid) {
    throw new ConfigError(
      name,
      `must be empty or a path like /blog, without a trailing slash (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}

/** A BCP 47 language tag written with hyphens (`en`, `zh-CN`); returned in canonical case. */
export function parseLanguageTag(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  const fail = () =>
    new ConfigError(
      name,
      `must be a language tag with hyphens such as en or zh-CN (got ${JSON.stringify(value)})`,
    );
  if (!/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/.test(value)) throw fail();
  try {
    const [canonical] = Intl.getCanonicalLocales(value);
    if (canonical) return canonical;
  } catch {
    // RangeError: not a well-formed tag.
  }
  throw fail();
}

/** An IANA time zone name known to this runtime (`UTC`, `Europe/Paris`). */
export function parseTimeZone(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  // Intl also accepts offsets such as "+01:00"; only names are time zones in the IANA sense.
  if (/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(value)) {
    try {
      const resolved = new Intl.DateTimeFormat("en", { timeZone: value }).resolvedOptions().timeZone;
      // Fix the case ("europe/paris"), but keep the name given rather than ICU's alias for it.
      return resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
    } catch {
      // RangeError: unknown time zone.
    }
  }
  throw new ConfigError(
    name,
    `must be an IANA time zone such as UTC or Europe/Paris (got ${JSON.stringify(value)})`,
  );
}

/** A host name or IP address to listen on. */
export function parseHost(name: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  const hostname =
    /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
  if (isIP(value) !== 0 || hostname.test(value)) return value;
  throw new ConfigError(
    name,
    `must be a host name or IP address such as 127.0.0.1 or :: (got ${JSON.stringify(value)})`,
  );
}

/** A secret that travels in an `Authorization: Bearer` header: no whitespace, at least `min` characters. */
export function parseToken(name: string, value: string | undefined, min: number): string | undefined {
  if (value === undefined) return undefined;
  if (/\s/.test(value)) throw new ConfigError(name, "must not contain whitespace");
  if (value.length < min) throw new ConfigError(name, `must be at least ${min} characters long`);
  return value;
}
