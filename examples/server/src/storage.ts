import type { Storage } from "@quire/core";
import { createFsStorage } from "@quire/storage-fs";
import type { ServerConfig } from "./config.js";
import { ConfigError, type Env } from "./env-values.js";

/** The public path where local media is served: `<SITE_PATH_PREFIX>/media`. */
export function localMediaPath(config: Pick<ServerConfig, "site">): string {
  return `${config.site.pathPrefix}/media`;
}

/**
 * The storage `STORAGE_DRIVER` names: a folder under `DATA_DIR` for `local`; for `s3` and `r2`,
 * `@quire/storage-s3` configured from the `S3_*`/`R2_*` variables (loaded only then, so a local
 * server never loads the AWS SDK). Invalid storage variables throw a {@link ConfigError}.
 */
export async function createStorage(config: ServerConfig, env: Env): Promise<Storage> {
  if (config.storageDriver === "local") {
    return createFsStorage({ root: config.mediaDir, publicBaseUrl: localMediaPath(config) });
  }
  const driver = config.storageDriver;
  let s3: typeof import("@quire/storage-s3");
  try {
    s3 = await import("@quire/storage-s3");
  } catch (error) {
    throw new ConfigError(
      "STORAGE_DRIVER",
      `is ${driver} but @quire/storage-s3 cannot be loaded: ${String(error)}`,
    );
  }
  try {
    return s3.createS3Storage(s3.s3OptionsFromEnv(env, driver));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const variable = /^[A-Z][A-Z0-9_]+/.exec(message)?.[0] ?? "STORAGE_DRIVER";
    throw new ConfigError(variable, message.slice(variable.length).trim() || "is invalid");
  }
}
