import { sql } from "kysely";
import { getAttachmentContent } from "./attachments/get-attachment-content.js";
import { tokenOperations, verifyApiToken } from "./auth/tokens.js";
import type { Caller } from "./caller.js";
import { internalCaller, ownerCaller, publicCaller } from "./caller.js";
import { collectionOperations } from "./collections/index.js";
import { customUrlOperations, type Resolution } from "./custom-urls/index.js";
import { resolveAddress } from "./custom-urls/resolve-address.js";
import { detectDialect, dialectNamed } from "./db/dialect.js";
import { migrateToLatest } from "./db/migrate.js";
import { SiteVersionReader } from "./db/site-version.js";
import type { EngineConfig, EngineContext, EngineDeps, Logger, SiteSettings } from "./deps.js";
import { discoverOperations } from "./discover/index.js";
import { EngineError } from "./errors.js";
import { exportOperations } from "./export/index.js";
import { feedOperations } from "./feeds/index.js";
import { githubSyncOperations, SyncScheduler } from "./github-sync/index.js";
import { maintenanceOperations } from "./maintenance/index.js";
import { mediaOperations } from "./media/index.js";
import { navOperations } from "./nav/index.js";
import {
  type AnyOperation,
  type ExecuteOptions,
  execute,
  type OperationInput,
  type OperationOutput,
} from "./operation.js";
import { postOperations } from "./posts/index.js";
import { searchOperations } from "./search/index.js";
import { sessionOperations, verifySession } from "./sessions/index.js";
import { settingsOperations } from "./settings/index.js";
import { checkFallbacks, SettingsStore } from "./settings/settings-store.js";
import { randomIds } from "./shared/ids.js";
import { systemClock } from "./shared/time.js";
import { smartCollectionOperations } from "./smart-collections/index.js";
import { telegramOperations } from "./telegram/index.js";
import { threadOperations } from "./threads/index.js";
import { translationOperations } from "./translations/index.js";
import { cleanupExpiredUploads, type UploadCleanup, uploadOperations } from "./uploads/index.js";

/**
 * Every operation of the engine, once. The in-process API (`engine.posts.create`), the HTTP route
 * table and the MCP tools are all derived from it by id.
 */
export const operations = [
  ...postOperations,
  getAttachmentContent,
  ...tokenOperations,
  ...threadOperations,
  ...collectionOperations,
  ...mediaOperations,
  ...uploadOperations,
  ...customUrlOperations,
  ...smartCollectionOperations,
  ...navOperations,
  ...searchOperations,
  ...settingsOperations,
  ...translationOperations,
  ...exportOperations,
  ...feedOperations,
  ...githubSyncOperations,
  ...discoverOperations,
  ...telegramOperations,
  ...sessionOperations,
  ...maintenanceOperations,
] as const;

/** One of the engine's operations. */
export type EngineOperation = (typeof operations)[number];
/** The id of one of the engine's operations, e.g. `posts.create`. */
export type OperationId = EngineOperation["id"];
/** The operation with a given id. */
export type OperationById<Id extends OperationId> = Extract<EngineOperation, { id: Id }>;

type GroupOf<Id> = Id extends `${infer Group}.${string}` ? Group : never;

/** An operation bound to an engine: validates its input and checks the caller (default: see `createEngine`). */
export type BoundOperation<Op> = (input: OperationInput<Op>, caller?: Caller) => Promise<OperationOutput<Op>>;

/** The in-process API: `engine.<group>.<name>` for each operation id `<group>.<name>`. */
export type EngineApi = {
  [Group in GroupOf<OperationId>]: {
    [Op in EngineOperation as Op["id"] extends `${Group}.${infer Name}` ? Name : never]: BoundOperation<Op>;
  };
};

/** A running engine: the typed operations plus lifecycle and adapter hooks. */
export type Engine = EngineApi & {
  /** The resolved dependencies (for adapters and tests); `settings` holds the fallbacks over the defaults. */
  readonly context: EngineContext;
  /** Every operation by id, for adapters that derive routes or tools from the table. */
  readonly operations: ReadonlyMap<OperationId, EngineOperation>;
  /** Runs an operation by id for a caller: how adapters call the engine. */
  execute<Id extends OperationId>(
    operationId: Id,
    input: unknown,
    caller: Caller,
    options?: ExecuteOptions,
  ): Promise<OperationOutput<OperationById<Id>>>;
  /** The site settings in effect now: the one place adapters read what a site owner may change. */
  siteSettings(): Promise<SiteSettings>;
  /**
   * The site content version now (a counter every write to public content or the settings moves,
   * db/site-version.ts) with the settings in effect at it: what a cache of public answers is keyed
   * by. One read of one row per call (shared by concurrent calls). @see docs/caching.md
   */
  siteState(): Promise<{ version: string; settings: SiteSettings }>;
  /** Applies pending database migrations; returns their names. */
  migrate(): Promise<string[]>;
  /** True when the database answers. */
  isReady(): Promise<boolean>;
  /** The caller an API token stands for, or null. */
  verifyApiToken(token: string): Promise<Caller | null>;
  /** The caller a browser session's secret stands for, or null (signed out, expired, unknown). */
  verifySession(token: string): Promise<Caller | null>;
  /** Closes the database. */
  close(): Promise<void>;
  /** Expires stale upload sessions and deletes their bytes; run it now and then (docs/media.md § Cleanup). */
  cleanupExpiredUploads(): Promise<UploadCleanup>;
  /**
   * What lives at a public path (site path prefix included), as an anonymous reader sees it: a
   * post, a collection, a smart collection, a redirect or nothing (`addresses.resolve`;
   * docs/custom-urls.md § Resolving an address).
   */
  resolve(path: string): Promise<Resolution>;
  /**
   * Throws 503 SITE_UNAVAILABLE when the operator's `siteAvailable` hook says the site is suspended
   * (docs/hosting.md); adapters call it before authenticating a request.
   */
  checkSiteAvailable(operationId: string | null): Promise<void>;
};

const defaultConfig: EngineConfig = {
  uploadMaxBytes: 1024 * 1024 * 1024,
  uploadMultipartThreshold: 64 * 1024 * 1024,
  uploadPartSize: 50 * 1024 * 1024,
  settingsCacheSeconds: 5,
};

/**
 * Builds an engine from its dependencies. Nothing is global: two engines (two sites) can share a
 * process. Call `migrate()` before first use.
 *
 * In-process calls act as the site owner, and as the internal admin for internal operations
 * (token management), unless another caller is passed.
 */
export function createEngine(deps: EngineDeps): Engine {
  const clock = deps.clock ?? systemClock();
  const logger = deps.logger ?? silentLogger;
  const config = { ...defaultConfig, ...deps.config };
  // The site's settings: stored overrides over these fallbacks over the built-in defaults, kept in
  // memory and replaced on this engine's writes (settings/settings-store.ts, docs/settings.md).
  const fallbacks = checkFallbacks(deps.settings ?? {});
  const settingsStore = new SettingsStore({
    db: deps.db,
    logger,
    fallbacks,
    siteVersion: new SiteVersionReader(deps.db),
  });
  const context: EngineContext = {
    db: deps.db,
    dialect: deps.dialect ? dialectNamed(deps.dialect) : detectDialect(deps.db),
    storage: deps.storage,
    clock,
    ids: deps.ids ?? randomIds(),
    logger,
    config,
    settings: settingsStore.resolve(new Map()).settings,
    settingsStore,
    links: deps.links,
    hooks: deps.hooks ?? {},
  };
  const siteSettings = (): Promise<SiteSettings> => settingsStore.current();
  const githubSync = new SyncScheduler(context);
  // One read of the settings per call (none at all while the cached copy is fresh); an adapter that
  // read them for the same request passes them in.
  // A suspended hosted site answers 503 to everything but the operator: internal operations, and
  // any operation called as the internal admin. @see docs/hosting.md
  const checkSiteAvailable = async (operationId: string | null): Promise<void> => {
    const hook = context.hooks.siteAvailable;
    if (hook && !(await hook({ operationId }))) {
      throw new EngineError("SITE_UNAVAILABLE", "This site is unavailable");
    }
  };
  const run = async (operation: AnyOperation, input: unknown, caller: Caller, options?: ExecuteOptions) => {
    if (operation.access !== "internal" && caller.role !== "internal" && !options?.siteChecked) {
      await checkSiteAvailable(operation.id);
    }
    try {
      const result = await execute(
        { ...context, settings: options?.settings ?? (await siteSettings()) },
        operation,
        input,
        caller,
        options,
      );
      // A write may change what the code-host sync commits: it runs once the writes stop
      // (github-sync/sync-scheduler.ts). Its own operations do not count: an applied push is
      // already in the repository.
      if (!operation.hints?.readOnly && !operation.id.startsWith("githubSync.")) githubSync.afterWrite();
      return result;
    } catch (err) {
      // A write undone by the database for meeting a concurrent one is not a server fault: 409,
      // nothing written, and the same request may be sent again. @see docs/reliability.md
      if (context.dialect.isWriteConflict(err)) {
        throw new EngineError("CONFLICT", "The write met a concurrent one and was undone; send it again");
      }
      throw err;
    }
  };

  const byId = new Map<OperationId, EngineOperation>();
  const api: Record<string, Record<string, BoundOperation<AnyOperation>>> = {};
  for (const operation of operations) {
    byId.set(operation.id, operation);
    const [group, name] = operation.id.split(".") as [string, string];
    const defaultCaller = operation.access === "internal" ? internalCaller : ownerCaller;
    api[group] ??= {};
    api[group][name] = (input: unknown, caller: Caller = defaultCaller) => run(operation, input, caller);
  }
  return {
    ...(api as unknown as EngineApi),
    context,
    operations: byId,
    execute: (operationId, input, caller, options) => {
      const operation = byId.get(operationId);
      if (!operation) throw new Error(`Unknown operation ${operationId}`);
      return run(operation, input, caller, options);
    },
    siteSettings,
    siteState: async () => {
      const state = await settingsStore.state();
      return { version: state.version, settings: state.resolved.settings };
    },
    migrate: () => migrateToLatest(context.db, undefined, context.dialect),
    isReady: async () => {
      try {
        await sql`select 1`.execute(context.db);
        return true;
      } catch {
        return false;
      }
    },
    verifyApiToken: (token) => verifyApiToken(context, token),
    verifySession: (token) => verifySession(context, token),
    close: async () => {
      await githubSync.stop();
      await context.db.destroy();
    },
    cleanupExpiredUploads: () => cleanupExpiredUploads(context),
    resolve: (path) => run(resolveAddress, { path }, publicCaller),
    checkSiteAvailable,
  };
}

const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
