import path from "node:path";
import {
  ConfigError,
  type Env,
  parseChoice,
  parseHost,
  parseInteger,
  parseLanguageTag,
  parseOrigin,
  parsePathPrefix,
  parseSwitch,
  parseTimeZone,
  parseToken,
  reader,
} from "./env-values.js";

export { ConfigError } from "./env-values.js";

/** The storage drivers `STORAGE_DRIVER` names. */
export const storageDrivers = ["local", "s3", "r2"] as const;

/** Numeric settings: name → range and default. @see docs/configuration.md */
export const numericSettings = {
  PORT: { min: 0, max: 65_535, fallback: 3000 },
  PAGE_SIZE: { min: 1, max: 100, fallback: 25 },
  ARCHIVE_PAGE_SIZE: { min: 1, max: 1000, fallback: 100 },
  RSS_FEED_LIMIT: { min: 1, max: 200, fallback: 20 },
  SUMMARY_MAX_CHARS: { min: 50, max: 5000, fallback: 300 },
  UPLOAD_MAX_FILE_SIZE_MB: { min: 1, max: 102_400, fallback: 1024 },
  SLUG_ID_LENGTH: { min: 4, max: 26, fallback: 8 },
  RATE_LIMIT_SEARCH_PER_MIN: { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 60 },
} as const;

/** The reference server's configuration, read from environment variables by {@link loadConfig}. */
export interface ServerConfig {
  host: string;
  port: number;
  /** Absolute path of the data folder (SQLite file, local media, generated auth secret). */
  dataDir: string;
  database: { kind: "sqlite"; url: string } | { kind: "postgres"; url: string };
  /** `AUTH_SECRET` when set; otherwise {@link resolveAuthSecret} generates one in `dataDir`. */
  authSecret: string | undefined;
  devApiToken: string | undefined;
  internalAdminToken: string | undefined;
  publicApiEnabled: boolean;
  noindex: boolean;
  rssFeedsEnabled: boolean;
  trustProxy: boolean;
  rateLimit: { enabled: boolean; searchPerMinute: number };
  /** `"*"`: every origin; `[]`: cross-origin access off; else the allowed origins. */
  corsOrigins: "*" | string[];
  storageDriver: (typeof storageDrivers)[number];
  /** Local storage folder (`<dataDir>/media`), served at `<sitePathPrefix>/media`. */
  mediaDir: string;
  discover: "latest" | "off";
  site: { origin: string | undefined; pathPrefix: string; language: string; timeZone: string };
  pageSize: number;
  archivePageSize: number;
  rssFeedLimit: number;
  summaryMaxChars: number;
  uploadMaxBytes: number;
  slugIdLength: number;
  /** Problems that do not stop the server, to print at start. */
  warnings: string[];
}

/** Options for {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Where relative paths are resolved: default `INIT_CWD` (the folder pnpm was run from), else the cwd. */
  cwd?: string;
}

/**
 * Reads and checks every startup variable; throws a {@link ConfigError} naming the first invalid
 * one. Empty values count as unset, except `CORS_ORIGINS` (empty: cross-origin access off).
 * Pure apart from path resolution: the generated auth secret is {@link resolveAuthSecret}'s job.
 * @see spec § Limits (configuration values checked at startup)
 */
export function loadConfig(env: Env, options: LoadConfigOptions = {}): ServerConfig {
  const read = reader(env);
  const cwd = options.cwd ?? read("INIT_CWD") ?? process.cwd();
  const dataDir = path.resolve(cwd, read("DATA_DIR") ?? "./data");
  const int = (name: keyof typeof numericSettings) => parseInteger(name, read(name), numericSettings[name]);
  const pathPrefix = parsePathPrefix("SITE_PATH_PREFIX", read("SITE_PATH_PREFIX"));
  const config: ServerConfig = {
    host: parseHost("HOST", read("HOST"), "127.0.0.1"),
    port: int("PORT"),
    dataDir,
    database: parseDatabaseUrl(read("DATABASE_URL"), { cwd, dataDir }),
    authSecret: parseAuthSecret("AUTH_SECRET", read("AUTH_SECRET")),
    devApiToken: parseToken("DEV_API_TOKEN", read("DEV_API_TOKEN"), 1),
    internalAdminToken: parseToken("INTERNAL_ADMIN_TOKEN", read("INTERNAL_ADMIN_TOKEN"), 16),
    publicApiEnabled: parseSwitch("PUBLIC_API_ENABLED", read("PUBLIC_API_ENABLED"), true),
    noindex: parseSwitch("NOINDEX", read("NOINDEX"), false),
    rssFeedsEnabled: parseSwitch("RSS_FEEDS_ENABLED", read("RSS_FEEDS_ENABLED"), true),
    trustProxy: parseSwitch("TRUST_PROXY", read("TRUST_PROXY"), false),
    rateLimit: {
      enabled: parseSwitch("RATE_LIMIT_ENABLED", read("RATE_LIMIT_ENABLED"), true),
      searchPerMinute: int("RATE_LIMIT_SEARCH_PER_MIN"),
    },
    corsOrigins: parseCorsOrigins("CORS_ORIGINS", env.CORS_ORIGINS),
    storageDriver: parseChoice("STORAGE_DRIVER", read("STORAGE_DRIVER"), storageDrivers, "local"),
    mediaDir: path.join(dataDir, "media"),
    discover: parseChoice("DISCOVER", read("DISCOVER"), ["latest", "off"], "off"),
    site: {
      origin: optional(read("SITE_ORIGIN"), (value) => parseOrigin("SITE_ORIGIN", value)),
      pathPrefix,
      language: parseLanguageTag("SITE_LANGUAGE", read("SITE_LANGUAGE"), "en"),
      timeZone: parseTimeZone("SITE_TIME_ZONE", read("SITE_TIME_ZONE"), "UTC"),
    },
    pageSize: int("PAGE_SIZE"),
    archivePageSize: int("ARCHIVE_PAGE_SIZE"),
    rssFeedLimit: int("RSS_FEED_LIMIT"),
    summaryMaxChars: int("SUMMARY_MAX_CHARS"),
    uploadMaxBytes: int("UPLOAD_MAX_FILE_SIZE_MB") * 1024 * 1024,
    slugIdLength: int("SLUG_ID_LENGTH"),
    warnings: [],
  };
  if (read("RATE_LIMIT_DISABLED") !== undefined) {
    config.warnings.push(
      "RATE_LIMIT_DISABLED is no longer read; set RATE_LIMIT_ENABLED=false to disable rate limits",
    );
  }
  if (config.devApiToken) {
    config.warnings.push(
      "DEV_API_TOKEN is set: it is accepted only from this machine to a local host; never set it in production",
    );
  }
  return config;
}

/** `AUTH_SECRET`: at least 32 characters and not a template placeholder. */
export function parseAuthSecret(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < 32) throw new ConfigError(name, "must be at least 32 characters long");
  if (value.toLowerCase().includes("replace-me"))
    throw new ConfigError(name, 'must not contain "replace-me"');
  return value;
}

/** `CORS_ORIGINS`: unset or `*` for all, empty for none, else a comma-separated list of origins. */
function parseCorsOrigins(name: string, value: string | undefined): "*" | string[] {
  if (value === undefined || value.trim() === "*") return "*";
  const items = value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.includes("*")) throw new ConfigError(name, 'must be "*" alone or a list of origins, not both');
  return items.map((item) => parseOrigin(name, item));
}

/** `DATABASE_URL`: a SQLite path (or `file:`/`sqlite:` form), or a `postgres://`/`postgresql://` URL. */
function parseDatabaseUrl(
  value: string | undefined,
  paths: { cwd: string; dataDir: string },
): ServerConfig["database"] {
  if (value === undefined) return { kind: "sqlite", url: path.join(paths.dataDir, "quire.db") };
  if (/^postgres(ql)?:\/\//i.test(value)) {
    if (!URL.canParse(value) || !new URL(value).hostname) {
      throw new ConfigError("DATABASE_URL", "is not a valid PostgreSQL URL");
    }
    return { kind: "postgres", url: value };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) && !/^(file|sqlite):/i.test(value)) {
    throw new ConfigError("DATABASE_URL", "must be a SQLite file path or a postgres:// URL");
  }
  const file = value.replace(/^sqlite:(\/\/)?/i, "").replace(/^file:(\/\/)?/i, "");
  if (file === "") throw new ConfigError("DATABASE_URL", "must name a SQLite file");
  return { kind: "sqlite", url: file === ":memory:" ? file : path.resolve(paths.cwd, file) };
}

function optional<T>(value: string | undefined, parse: (value: string) => T): T | undefined {
  return value === undefined ? undefined : parse(value);
}
