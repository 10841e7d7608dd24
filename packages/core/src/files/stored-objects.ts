import type { EngineContext } from "../deps.js";
import { EngineError } from "../errors.js";
import type { Storage } from "../storage.js";

/** The engine's storage, or CONFIGURATION_ERROR: media and uploads need somewhere to keep bytes. */
export function requireStorage(ctx: EngineContext): Storage {
  if (!ctx.storage)
    throw new EngineError("CONFIGURATION_ERROR", "No file storage is configured for this site");
  return ctx.storage;
}

/** A store that failed for reasons of its own: logged, and EXTERNAL_SERVICE_ERROR to the client. */
export function storageFailure(ctx: EngineContext, err: unknown): EngineError {
  ctx.logger.error("file storage failed", {
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  });
  return new EngineError("EXTERNAL_SERVICE_ERROR", "The file store failed; try again");
}

/** Deletes stored objects after a commit; a failure is logged, never thrown at the client. */
export async function deleteStoredKeys(ctx: EngineContext, keys: string[]): Promise<void> {
  if (!ctx.storage) return;
  for (const key of keys) {
    try {
      await ctx.storage.delete(key);
    } catch (err) {
      ctx.logger.warn("could not delete stored object", { key, error: String(err) });
    }
  }
}
