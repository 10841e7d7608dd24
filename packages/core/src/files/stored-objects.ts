import type { EngineContext } from "../deps.js";
import { EngineError } from "../errors.js";
import type { Storage } from "../storage.js";

/** The engine's storage, or CONFIGURATION_ERROR: media and uploads need somewhere to keep bytes. */
export function requireStorage(ctx: EngineContext): Storage {
  if (!ctx.storage)
    throw new EngineError("CONFIGURATION_ERROR", "No file storage is configured for this site");
  return ctx.storage;
}

/**
 * A store that failed for reasons of its own: logged, and to the client CONFIGURATION_ERROR when
 * it cannot write where it was told to (a folder that is not one, or not writable), else
 * EXTERNAL_SERVICE_ERROR (saying so when it is out of space). Stores that report a POSIX error
 * `code` (ENOSPC, EACCES, …), as a local folder does, get the precise answer.
 */
export function storageFailure(ctx: EngineContext, err: unknown): EngineError {
  ctx.logger.error("file storage failed", {
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  });
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && unwritable.has(code)) {
    return new EngineError(
      "CONFIGURATION_ERROR",
      "The file store cannot write to its folder; check the storage path and its permissions",
    );
  }
  if (code === "ENOSPC" || code === "EDQUOT") {
    return new EngineError("EXTERNAL_SERVICE_ERROR", "The file store is out of space");
  }
  return new EngineError("EXTERNAL_SERVICE_ERROR", "The file store failed; try again");
}

/** Error codes of a store that cannot write where it was configured to: retrying will not help. */
const unwritable = new Set(["EACCES", "EPERM", "EROFS", "ENOTDIR", "EISDIR"]);

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
