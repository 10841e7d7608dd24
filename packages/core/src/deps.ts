import type { Kysely } from "kysely";
import type { Database } from "./db/schema.js";
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

/** Site-level settings the engine needs at run time. @see docs/configuration.md */
export interface EngineConfig {
  /** Public path prefix of the site (`SITE_PATH_PREFIX`), "" or like "/blog". */
  sitePathPrefix: string;
  /** IANA time zone used for calendar questions such as the Thread list's `year` filter. */
  timeZone: string;
  /** Largest accepted upload in bytes (`UPLOAD_MAX_FILE_SIZE_MB`). */
  uploadMaxBytes: number;
  /** Declared sizes above this get the `multipartRelay` transport when the storage has multipart. */
  uploadMultipartThreshold: number;
  /** Part size of a `multipartRelay` (raised when a file would need more than 10,000 parts). */
  uploadPartSize: number;
}

/** The SQL dialect behind the injected Kysely instance. */
export type DialectName = "sqlite" | "postgres";

/** Everything an engine is made of. */
export interface EngineDeps {
  db: Kysely<Database>;
  storage?: Storage | undefined;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  config?: Partial<EngineConfig>;
}

/** The resolved dependencies every operation receives. */
export interface EngineContext {
  db: Kysely<Database>;
  dialect: DialectName;
  storage: Storage | undefined;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  config: EngineConfig;
}
