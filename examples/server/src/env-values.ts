import { isIP } from "node:net";
import * as z from "zod";

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

/** `env` with empty values removed, so that they count as unset. */
export function withoutEmptyValues(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
}

/**
 * Parses variables with a schema of one entry per variable; the first problem, in the schema's
 * order, throws a {@link ConfigError} naming its variable.
 */
export function parseEnv<Schema extends z.ZodObject>(schema: Schema, env: Env): z.output<Schema> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw new ConfigError(String(issue?.path[0] ?? "environment"), issue?.message ?? "is invalid");
}

/** Parses one value with a variable's schema; a problem throws a {@link ConfigError} naming `name`. */
export function parseValue<Schema extends z.ZodType>(
  name: string,
  schema: Schema,
  value: string | undefined,
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ConfigError(name, result.error.issues[0]?.message ?? "is invalid");
}

/** An issue message that ends with the value given: `problem (got "value")`. */
function got(problem: string): (issue: { input?: unknown }) => string {
  return (issue) => `${problem} (got ${JSON.stringify(issue.input)})`;
}

/** A switch: exactly `true` or `false`. @see spec § Limits (startup configuration) */
export const envSwitch = z
  .enum(["true", "false"], { error: got('must be exactly "true" or "false"') })
  .transform((value) => value === "true");

/** A base-10 integer within `[min, max]`; spaces around it are ignored. */
export function envInteger(range: { min: number; max: number }) {
  const isInRange = (value: string) => {
    const number = /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    return Number.isSafeInteger(number) && number >= range.min && number <= range.max;
  };
  return z
    .string()
    .refine(isInRange, { error: got(`must be an integer from ${range.min} to ${range.max}`) })
    .transform((value) => Number(value.trim()));
}

/** One of a fixed set of words. */
export function envChoice<const Choices extends readonly [string, ...string[]]>(choices: Choices) {
  return z.enum(choices, { error: got(`must be one of ${choices.join(", ")}`) });
}

/**
 * An origin: `http(s)://host[:port]`, optionally with a trailing "/", and nothing else (no path,
 * query, fragment or credentials). The value is the normalised origin without the slash.
 */
export const envOrigin = z
  .string()
  .refine((value) => URL.canParse(value), {
    error: got("must be an origin such as https://example.com"),
    abort: true,
  })
  .refine((value) => ["http:", "https:"].includes(new URL(value).protocol), {
    error: got("must use http or https"),
    abort: true,
  })
  .refine((value) => !new URL(value).username && !new URL(value).password, {
    error: got("must not contain credentials"),
    abort: true,
  })
  .refine((value) => new URL(value).pathname === "/", {
    error: got("must not have a path (put a subpath in SITE_PATH_PREFIX)"),
    abort: true,
  })
  .refine((value) => !value.includes("?") && !value.includes("#"), {
    error: got("must not have a query or fragment"),
  })
  .transform((value) => new URL(value).origin);

/** A site path prefix: `/segment[/segment…]` without a trailing slash (unset: ""). */
export const envPathPrefix = z.string().refine(
  (value) =>
    value.startsWith("/") &&
    value
      .split("/")
      .slice(1)
      .every((segment) => /^[A-Za-z0-9._~-]+$/.test(segment) && segment !== "." && segment !== ".."),
  { error: got("must be empty or a path like /blog, without a trailing slash") },
);

/** A BCP 47 language tag written with hyphens (`en`, `zh-CN`); the value is in canonical case. */
export const envLanguageTag = z
  .string()
  .refine((value) => canonicalLanguageTag(value) !== undefined, {
    error: got("must be a language tag with hyphens such as en or zh-CN"),
  })
  .transform((value) => canonicalLanguageTag(value) ?? value);

function canonicalLanguageTag(value: string): string | undefined {
  if (!/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/.test(value)) return undefined;
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    return undefined; // RangeError: not a well-formed tag.
  }
}

/** An IANA time zone name known to this runtime (`UTC`, `Europe/Paris`), in the runtime's case. */
export const envTimeZone = z
  .string()
  .refine((value) => knownTimeZone(value) !== undefined, {
    error: got("must be an IANA time zone such as UTC or Europe/Paris"),
  })
  .transform((value) => knownTimeZone(value) ?? value);

function knownTimeZone(value: string): string | undefined {
  // Intl also accepts offsets such as "+01:00"; only names are time zones in the IANA sense.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(value)) return undefined;
  try {
    const resolved = new Intl.DateTimeFormat("en", { timeZone: value }).resolvedOptions().timeZone;
    // Fix the case ("europe/paris"), but keep the name given rather than ICU's alias for it.
    return resolved.toLowerCase() === value.toLowerCase() ? resolved : value;
  } catch {
    return undefined; // RangeError: unknown time zone.
  }
}

const hostName =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** A host name or IP address to listen on. */
export const envHost = z.string().refine((value) => isIP(value) !== 0 || hostName.test(value), {
  error: got("must be a host name or IP address such as 127.0.0.1 or ::"),
});

/** A secret that travels in an `Authorization: Bearer` header: no whitespace, at least `min` characters. */
export function envToken(min: number) {
  return z
    .string()
    .regex(/^\S*$/, { error: "must not contain whitespace", abort: true })
    .min(min, { error: `must be at least ${min} characters long` });
}

/** `AUTH_SECRET`: at least 32 characters and not a template placeholder. */
export const envAuthSecret = z
  .string()
  .min(32, { error: "must be at least 32 characters long", abort: true })
  .refine((value) => !value.toLowerCase().includes("replace-me"), {
    error: 'must not contain "replace-me"',
  });

const postgresScheme = /^postgres(ql)?:\/\//i;

/**
 * `DATABASE_URL`: a `postgres://`/`postgresql://` URL, or a SQLite file path (also in `file:` and
 * `sqlite:` form). The SQLite file is given as written; {@link loadConfig} resolves it.
 */
export const envDatabaseUrl = z
  .string()
  .refine((value) => !postgresScheme.test(value) || (URL.canParse(value) && new URL(value).hostname !== ""), {
    error: "is not a valid PostgreSQL URL",
    abort: true,
  })
  .refine(
    (value) =>
      postgresScheme.test(value) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^(file|sqlite):/i.test(value),
    { error: "must be a SQLite file path or a postgres:// URL", abort: true },
  )
  .transform((value) =>
    postgresScheme.test(value)
      ? { kind: "postgres" as const, url: value }
      : {
          kind: "sqlite" as const,
          file: value.replace(/^sqlite:(\/\/)?/i, "").replace(/^file:(\/\/)?/i, ""),
        },
  )
  .refine((database) => database.kind === "postgres" || database.file !== "", {
    error: "must name a SQLite file",
  });

const originList = z
  .array(z.string())
  .refine((items) => !items.includes("*"), {
    error: 'must be "*" alone or a list of origins, not both',
    abort: true,
  })
  .pipe(z.array(envOrigin));

/** `CORS_ORIGINS`: unset or `*` for every origin, empty for none, else a comma-separated list of origins. */
export const envCorsOrigins = z
  .string()
  .optional()
  .transform((value) =>
    value === undefined || value.trim() === "*"
      ? undefined
      : value
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean),
  )
  .pipe(originList.optional())
  .transform((origins): "*" | string[] => origins ?? "*");
