import { sql } from "kysely";
import { getAttachmentContent } from "./attachments/get-attachment-content.js";
import { tokenOperations, verifyApiToken } from "./auth/tokens.js";
import type { Caller } from "./caller.js";
import { ownerCaller } from "./caller.js";
import { dialectOf } from "./db/dialect.js";
import { migrateToLatest } from "./db/migrate.js";
import type { EngineConfig, EngineContext, EngineDeps, Logger } from "./deps.js";
import { mediaOperations } from "./media/index.js";
import { execute, type Operation, type OperationInput, type OperationOutput } from "./operation.js";
import { postOperations, publicPostOperations } from "./posts/index.js";
import { randomIds } from "./shared/ids.js";
import { systemClock } from "./shared/time.js";
import { publicThreadOperations, threadOperations } from "./threads/index.js";
import { cleanupExpiredUploads, type UploadCleanup, uploadOperations } from "./uploads/index.js";

/** Every operation, grouped as the in-process API exposes them (`engine.posts.create`). */
export const operationGroups = {
  posts: postOperations,
  publicPosts: publicPostOperations,
  attachments: { getContent: getAttachmentContent },
  tokens: tokenOperations,
  threads: threadOperations,
  publicThreads: publicThreadOperations,
  media: mediaOperations,
  uploads: uploadOperations,
};

type Groups = typeof operationGroups;

/** An operation bound to an engine: validates its input and checks the caller (default: the owner). */
export type BoundOperation<Op> = (input: OperationInput<Op>, caller?: Caller) => Promise<OperationOutput<Op>>;

/** The in-process API: one typed function per operation. */
export type EngineApi = { [G in keyof Groups]: { [K in keyof Groups[G]]: BoundOperation<Groups[G][K]> } };

/** A running engine: the typed operations plus lifecycle and adapter hooks. */
export type Engine = EngineApi & {
  /** The resolved dependencies (for adapters and tests). */
  readonly context: EngineContext;
  /** Every operation by id, for adapters that route by table. */
  readonly operations: ReadonlyMap<string, Operation>;
  /** Runs an operation by id for a caller: how adapters call the engine. */
  execute(operationId: string, input: unknown, caller: Caller): Promise<unknown>;
  /** Applies pending database migrations; returns their names. */
  migrate(): Promise<string[]>;
  /** True when the database answers. */
  isReady(): Promise<boolean>;
  /** The caller an API token stands for, or null. */
  verifyApiToken(token: string): Promise<Caller | null>;
  /** Closes the database. */
  close(): Promise<void>;
  /** Expires stale upload sessions and deletes their bytes; run it now and then (docs/media.md § Cleanup). */
  cleanupExpiredUploads(): Promise<UploadCleanup>;
};

const defaultConfig: EngineConfig = {
  sitePathPrefix: "",
  timeZone: "UTC",
  uploadMaxBytes: 1024 * 1024 * 1024,
  uploadMultipartThreshold: 64 * 1024 * 1024,
  uploadPartSize: 50 * 1024 * 1024,
};

/**
 * Builds an engine from its dependencies. Nothing is global: two engines (two sites) can share a
 * process. Call `migrate()` before first use.
 */
export function createEngine(deps: EngineDeps): Engine {
  const context: EngineContext = {
    db: deps.db,
    dialect: dialectOf(deps.db),
    storage: deps.storage,
    clock: deps.clock ?? systemClock(),
    ids: deps.ids ?? randomIds(),
    logger: deps.logger ?? silentLogger,
    config: { ...defaultConfig, ...deps.config },
  };
  const operations = new Map<string, Operation>();
  const api: Record<string, Record<string, BoundOperation<Operation>>> = {};
  for (const [group, members] of Object.entries(operationGroups)) {
    api[group] = {};
    for (const [name, operation] of Object.entries(members as Record<string, Operation>)) {
      operations.set(operation.id, operation);
      (api[group] as Record<string, unknown>)[name] = (input: unknown, caller: Caller = ownerCaller) =>
        execute(context, operation, input, caller);
    }
  }
  return {
    ...(api as unknown as EngineApi),
    context,
    operations,
    execute: (operationId, input, caller) => {
      const operation = operations.get(operationId);
      if (!operation) throw new Error(`Unknown operation ${operationId}`);
      return execute(context, operation, input, caller);
    },
    migrate: () => migrateToLatest(context.db),
    isReady: async () => {
      try {
        await sql`select 1`.execute(context.db);
        return true;
      } catch {
        return false;
      }
    },
    verifyApiToken: (token) => verifyApiToken(context, token),
    close: () => context.db.destroy(),
    cleanupExpiredUploads: () => cleanupExpiredUploads(context),
  };
}

const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
