import type { Kysely } from "kysely";
import type { Dialect, DialectName } from "./db/dialect.js";
import type { Database } from "./db/schema.js";
import type { SettingsStore } from "./settings/settings-store.js";
import type { Storage } from "./storage.js";

/** The time source. Core never calls `Date.now()`; tests inject a fixed clock. */
export interface Clock {
  /** Current time in integer Unix seconds. */
  now(): number;
}

/** ID and secret generation. Core never calls `randomUUID()`; tests inject sequential IDs. */
export interface IdGenerator {
  /** A new TypeID with the given prefix, e.g. `pst_01h…`. Later calls sort after earlier ones. */
  generate(prefix: string): string;
  /** A random secret of at least 32 bytes of entropy, base64url encoded (API tokens). */
  secret(): string;
}

/** Where the engine reports failures it swallows (unexpected errors, cleanup problems). */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * What a site owner may change about a site, as in effect for one operation call. The engine reads
 * them in one place ({@link EngineContext.settings}, `engine.siteSettings()`); adapters ask the
 * engine for them, never their own options. @see docs/configuration.md
 */
export interface SiteSettings {
  /** Public path prefix of the site (`SITE_PATH_PREFIX`), "" or like "/blog". */
  sitePathPrefix: string;
  /** IANA time zone used for calendar questions such as the Thread list's `year` filter. */
  timeZone: string;
  /** `false`: the public surface (`/api/public/*`) is closed (`PUBLIC_API_ENABLED`). */
  publicApiEnabled: boolean;
  /** The site's primary language, a canonical BCP 47 tag (`SITE_LANGUAGE`). */
  siteLanguage: string;
  /** The site's other languages, canonical BCP 47 tags, never the primary (`ADDITIONAL_LANGUAGES`). */
  additionalLanguages: string[];
  /** True when the site publishes in several languages (`MULTILINGUAL_ENABLED`). */
  multilingualEnabled: boolean;
  /** What a smart collection's `layout: null` follows (`ARCHIVE_DEFAULT_LAYOUT`). */
  archiveDefaultLayout: "list" | "grid";
  /** The site's name (`SITE_NAME`). */
  siteName: string;
  /** A sentence or two about the site, may be empty (`SITE_DESCRIPTION`). */
  siteDescription: string;
  /** Text shown at the foot of site pages, may be empty (`SITE_FOOTER`). */
  siteFooter: string;
  /** Posts per page on site pages (`PAGE_SIZE`). */
  pageSize: number;
  /** What the main feed lists: the latest Threads or the featured ones (`MAIN_RSS_FEED`). */
  mainRssFeed: "latest" | "featured";
  /** `false`: no RSS feeds (`RSS_FEEDS_ENABLED`). */
  rssFeedsEnabled: boolean;
  /** Items in an RSS feed (`RSS_FEED_LIMIT`). */
  rssFeedLimit: number;
  /** Seconds a published post waits before it appears in feeds (`RSS_PUBLISH_DELAY_SECONDS`). */
  rssPublishDelaySeconds: number;
  /** `true`: ask search engines not to index the site (`NOINDEX`). */
  noindex: boolean;
  /** `off`: the site is not listed for discovery and `GET /api/discover/posts` answers 404 (`DISCOVER`). */
  discover: "latest" | "off";
}

/**
 * Addresses on an adapter's surface that core writes into its answers. Core builds no URL of a
 * transport: the adapter that serves these paths supplies them (the HTTP handler does per request).
 * Without links, in-process answers leave the fields out (`contentUrl`, an upload transport's `url`).
 */
export interface Links {
  /** Where the owner reads a text attachment's Markdown (`contentUrl`). */
  attachmentContent(attachmentId: string): string;
  /** Where a `relay` upload's bytes go. */
  uploadBody(uploadId: string): string;
  /** Where a `multipartRelay` upload's parts go. */
  uploadPart(uploadId: string): string;
  /**
   * The origin (`https://example.com`) the adapter is serving, when it knows it: a full URL with
   * another origin is another site's (translations.resolve).
   */
  siteOrigin?: string | undefined;
}

/** Deployment limits of an engine, fixed when it is created. @see docs/configuration.md */
export interface EngineConfig {
  /** Largest accepted upload in bytes (`UPLOAD_MAX_FILE_SIZE_MB`). */
  uploadMaxBytes: number;
  /** Declared sizes above this get the `multipartRelay` transport when the storage has multipart. */
  uploadMultipartThreshold: number;
  /** Part size of a `multipartRelay` (raised when a file would need more than 10,000 parts). */
  uploadPartSize: number;
  /**
   * No longer read: the engine keeps the site's settings while the site content version has not
   * moved, so every settings write, of this engine or another, is seen on the next read.
   * @deprecated kept so existing configurations still type-check. @see docs/settings.md § Caching
   */
  settingsCacheSeconds: number;
}

export type { Dialect, DialectName };

/** What a site-availability hook is asked: which operation is about to run. */
export interface SiteAvailabilityRequest {
  /** The operation's id (`posts.create`); null for a request checked before it names one (an MCP session). */
  operationId: string | null;
}

/** What a media quota hook is asked before upload bytes are kept. @see docs/hosting.md */
export interface MediaQuotaRequest {
  /**
   * The bytes the upload adds: the declared size at `init` and `complete`, the received size of a
   * one-shot upload once stored (`upload`); null before a one-shot upload's bytes are read
   * (`upload-start`), when only a quota already used up can refuse it.
   */
  bytes: number | null;
  /** Where the check is made. */
  stage: "init" | "upload-start" | "upload" | "complete";
  /** The bytes the site's media records hold now (their sizes summed), read when called. */
  storedBytes(): Promise<number>;
}

/**
 * What an operator hosting many sites plugs into an engine (one engine per site). Each hook is
 * optional; without it nothing is refused. A hook that throws fails the call as an internal error.
 * @see docs/hosting.md
 */
export interface EngineHooks {
  /**
   * False: the site is suspended and every call answers 503 SITE_UNAVAILABLE, except internal
   * operations (the operator's own tools). Asked on every call: cache what it reads.
   */
  siteAvailable?(request: SiteAvailabilityRequest): boolean | Promise<boolean>;
  /** False: the upload does not fit the site's media quota, 409 MEDIA_QUOTA_EXCEEDED with nothing stored. */
  mediaQuota?(request: MediaQuotaRequest): boolean | Promise<boolean>;
}

/** Everything an engine is made of. */
export interface EngineDeps {
  db: Kysely<Database>;
  storage?: Storage | undefined;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  config?: Partial<EngineConfig>;
  /**
   * Fallbacks of the site's settings: the value of a key the settings store has no override for
   * (the reference server passes its environment variables here). Unset fields take the built-in
   * defaults. An invalid value throws CONFIGURATION_ERROR when the engine is created.
   */
  settings?: Partial<SiteSettings>;
  /** The addresses an adapter serves, for in-process answers; an HTTP handler passes its own per request. */
  links?: Links | undefined;
  /**
   * The SQL dialect, when detection from the Kysely instance is not wanted (a custom driver);
   * detected from the adapter's capabilities otherwise.
   */
  dialect?: DialectName | undefined;
  /** Operator hooks: site availability and media quota (docs/hosting.md). */
  hooks?: EngineHooks | undefined;
}

/** The resolved dependencies every operation receives. */
export interface EngineContext {
  db: Kysely<Database>;
  /** Every difference between SQL dialects, behind one object. */
  dialect: Dialect;
  storage: Storage | undefined;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  config: EngineConfig;
  /** The site settings in effect for this call. */
  settings: SiteSettings;
  /** The settings store behind {@link EngineContext.settings}: its cache, for the settings operations. */
  settingsStore: SettingsStore;
  links: Links | undefined;
  /** The operator's hooks ({@link EngineHooks}); empty when none were given. */
  hooks: EngineHooks;
}
