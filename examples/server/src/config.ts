import { availableParallelism } from "node:os";
import path from "node:path";
import {
  checkSettingValue,
  SettingTextError,
  type SiteSettings,
  settingKeys,
  settingsFromText,
} from "@quire/core";
import * as z from "zod";
import {
  ConfigError,
  type Env,
  envAuthSecret,
  envChoice,
  envCorsOrigins,
  envDatabaseUrl,
  envHost,
  envInteger,
  envLanguageTag,
  envOrigin,
  envPathPrefix,
  envSwitch,
  envTimeZone,
  envToken,
  parseEnv,
  withoutEmptyValues,
} from "./env-values.js";

export { ConfigError };

/**
 * A site setting's variable, checked as the engine's settings store checks the key of the same
 * name (docs/settings.md), so a value the store would refuse stops the server.
 */
function envSetting(key: string) {
  return z.string().transform((value, ctx) => {
    const checked = checkSettingValue(key, value);
    if (checked.ok) return checked.value;
    ctx.addIssue({
      code: "custom",
      message: `must be valid: ${checked.message} (got ${JSON.stringify(value)})`,
    });
    return z.NEVER;
  });
}

/**
 * `WORKERS`: `auto` (one per core, `os.availableParallelism()`) or a count from 1 to 256.
 * @see docs/scaling.md
 */
const envWorkers = z.union(
  [z.literal("auto").transform(() => availableParallelism()), envInteger({ min: 1, max: 256 })],
  { error: (issue) => `must be "auto" or an integer from 1 to 256 (got ${JSON.stringify(issue.input)})` },
);

/** The storage drivers `STORAGE_DRIVER` names. */
export const storageDrivers = ["local", "s3", "r2"] as const;

/**
 * Every startup variable, one schema each, with its default. When several are invalid, the first
 * in this order is reported. @see docs/configuration.md
 */
export const envSchema = z.object({
  INIT_CWD: z.string().optional(),
  DATA_DIR: z.string().default("./data"),
  SITE_PATH_PREFIX: envPathPrefix.default(""),
  HOST: envHost.default("127.0.0.1"),
  PORT: envInteger({ min: 0, max: 65_535 }).default(3000),
  WORKERS: envWorkers.default(1),
  DATABASE_URL: envDatabaseUrl.optional(),
  AUTH_SECRET: envAuthSecret.optional(),
  DEV_API_TOKEN: envToken(1).optional(),
  INTERNAL_ADMIN_TOKEN: envToken(16).optional(),
  PUBLIC_API_ENABLED: envSwitch.default(true),
  NOINDEX: envSwitch.default(false),
  RSS_FEEDS_ENABLED: envSwitch.default(true),
  TRUST_PROXY: envSwitch.default(false),
  RATE_LIMIT_ENABLED: envSwitch.default(true),
  RATE_LIMIT_SEARCH_PER_MIN: envInteger({ min: 0, max: Number.MAX_SAFE_INTEGER }).default(60),
  /** Retired: only its presence is read, to warn. */
  RATE_LIMIT_DISABLED: z.string().optional(),
  CORS_ORIGINS: envCorsOrigins,
  STORAGE_DRIVER: envChoice(storageDrivers).default("local"),
  DISCOVER: envChoice(["latest", "off"]).default("off"),
  SITE_ORIGIN: envOrigin.optional(),
  SITE_LANGUAGE: envLanguageTag.default("en"),
  /** The older name of TIME_ZONE, still read when TIME_ZONE is unset. */
  SITE_TIME_ZONE: envTimeZone.optional(),
  TIME_ZONE: envTimeZone.optional(),
  SITE_NAME: envSetting("SITE_NAME").optional(),
  SITE_DESCRIPTION: envSetting("SITE_DESCRIPTION").optional(),
  SITE_FOOTER: envSetting("SITE_FOOTER").optional(),
  ADDITIONAL_LANGUAGES: envSetting("ADDITIONAL_LANGUAGES").optional(),
  MULTILINGUAL_ENABLED: envSwitch.optional(),
  ARCHIVE_DEFAULT_LAYOUT: envChoice(["list", "grid"]).optional(),
  MAIN_RSS_FEED: envChoice(["latest", "featured"]).optional(),
  RSS_PUBLISH_DELAY_SECONDS: envInteger({ min: 0, max: 86_400 }).optional(),
  PAGE_SIZE: envInteger({ min: 1, max: 100 }).default(25),
  ARCHIVE_PAGE_SIZE: envInteger({ min: 1, max: 1000 }).default(100),
  RSS_FEED_LIMIT: envInteger({ min: 1, max: 200 }).default(20),
  SUMMARY_MAX_CHARS: envInteger({ min: 50, max: 5000 }).default(300),
  UPLOAD_MAX_FILE_SIZE_MB: envInteger({ min: 1, max: 102_400 }).default(1024),
  SLUG_ID_LENGTH: envInteger({ min: 4, max: 26 }).default(8),
  RESPONSE_CACHE: envChoice(["on", "off"]).default("on"),
  RESPONSE_CACHE_MAX_MB: envInteger({ min: 1, max: 65_536 }).default(32),
  REQUEST_TIMEOUT_SECONDS: envInteger({ min: 0, max: 86_400 }).default(3600),
  REQUEST_BODY_IDLE_SECONDS: envInteger({ min: 0, max: 3600 }).default(60),
});

/** The reference server's configuration, read from environment variables by {@link loadConfig}. */
export interface ServerConfig {
  host: string;
  port: number;
  /** Worker processes sharing the port (`WORKERS`; `auto`: one per core). 1 serves in this process. */
  workers: number;
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
  /** The cache of public answers (`RESPONSE_CACHE`, `RESPONSE_CACHE_MAX_MB`); docs/caching.md. */
  responseCache: { enabled: boolean; maxBytes: number };
  /**
   * How long a request may take to arrive whole (`REQUEST_TIMEOUT_SECONDS`), and how long its body
   * may stop arriving (`REQUEST_BODY_IDLE_SECONDS`), in milliseconds; 0: no limit. docs/configuration.md
   */
  timeouts: { requestMs: number; bodyIdleMs: number };
  /**
   * The site settings the environment sets, handed to the engine as the fallbacks of its settings
   * store (`createEngine({ settings })`): only the variables that are set, so that the others show
   * as defaults. @see docs/settings.md
   */
  siteSettings: Partial<SiteSettings>;
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
  const vars = parseEnv(envSchema, { ...withoutEmptyValues(env), CORS_ORIGINS: env.CORS_ORIGINS });
  const cwd = options.cwd ?? vars.INIT_CWD ?? process.cwd();
  const dataDir = path.resolve(cwd, vars.DATA_DIR);
  const config: ServerConfig = {
    host: vars.HOST,
    port: vars.PORT,
    workers: vars.WORKERS,
    dataDir,
    database: resolveDatabase(vars.DATABASE_URL, { cwd, dataDir }),
    authSecret: vars.AUTH_SECRET,
    devApiToken: vars.DEV_API_TOKEN,
    internalAdminToken: vars.INTERNAL_ADMIN_TOKEN,
    publicApiEnabled: vars.PUBLIC_API_ENABLED,
    noindex: vars.NOINDEX,
    rssFeedsEnabled: vars.RSS_FEEDS_ENABLED,
    trustProxy: vars.TRUST_PROXY,
    rateLimit: { enabled: vars.RATE_LIMIT_ENABLED, searchPerMinute: vars.RATE_LIMIT_SEARCH_PER_MIN },
    corsOrigins: vars.CORS_ORIGINS,
    storageDriver: vars.STORAGE_DRIVER,
    mediaDir: path.join(dataDir, "media"),
    discover: vars.DISCOVER,
    site: {
      origin: vars.SITE_ORIGIN,
      pathPrefix: vars.SITE_PATH_PREFIX,
      language: vars.SITE_LANGUAGE,
      timeZone: vars.TIME_ZONE ?? vars.SITE_TIME_ZONE ?? "UTC",
    },
    pageSize: vars.PAGE_SIZE,
    archivePageSize: vars.ARCHIVE_PAGE_SIZE,
    rssFeedLimit: vars.RSS_FEED_LIMIT,
    summaryMaxChars: vars.SUMMARY_MAX_CHARS,
    uploadMaxBytes: vars.UPLOAD_MAX_FILE_SIZE_MB * 1024 * 1024,
    responseCache: {
      enabled: vars.RESPONSE_CACHE === "on",
      maxBytes: vars.RESPONSE_CACHE_MAX_MB * 1024 * 1024,
    },
    timeouts: {
      requestMs: vars.REQUEST_TIMEOUT_SECONDS * 1000,
      bodyIdleMs: vars.REQUEST_BODY_IDLE_SECONDS * 1000,
    },
    slugIdLength: vars.SLUG_ID_LENGTH,
    siteSettings: siteSettingsOf(vars, withoutEmptyValues(env)),
    warnings: [],
  };
  if (vars.RATE_LIMIT_DISABLED !== undefined) {
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

/**
 * The settings variables that are set, as the engine's fallbacks: each parsed value checked like
 * the store's key of the same name and the language keys against each other; `SITE_TIME_ZONE`
 * stands in for an unset `TIME_ZONE`. `SITE_PATH_PREFIX` is always handed over (only the
 * environment sets it).
 */
function siteSettingsOf(vars: z.output<typeof envSchema>, set: Env): Partial<SiteSettings> {
  const values: Record<string, string | undefined> = {};
  for (const key of settingKeys) {
    const value = (vars as Record<string, unknown>)[key];
    if (set[key] !== undefined && value !== undefined) values[key] = String(value);
  }
  values.TIME_ZONE = vars.TIME_ZONE ?? vars.SITE_TIME_ZONE;
  try {
    return { sitePathPrefix: vars.SITE_PATH_PREFIX, ...settingsFromText(values) };
  } catch (err) {
    if (err instanceof SettingTextError) {
      throw new ConfigError(err.key, err.message.slice(err.key.length + 2));
    }
    throw err;
  }
}

/** The database `DATABASE_URL` names, a SQLite file resolved against `cwd` (default: in `dataDir`). */
function resolveDatabase(
  database: z.output<typeof envDatabaseUrl> | undefined,
  paths: { cwd: string; dataDir: string },
): ServerConfig["database"] {
  if (database === undefined) return { kind: "sqlite", url: path.join(paths.dataDir, "quire.db") };
  if (database.kind === "postgres") return database;
  const { file } = database;
  return { kind: "sqlite", url: file === ":memory:" ? file : path.resolve(paths.cwd, file) };
}
