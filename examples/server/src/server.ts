import { mkdir } from "node:fs/promises";
import { createServer, type Server, type ServerOptions } from "node:http";
import { isIPv6 } from "node:net";
import path from "node:path";
import { createEngine, type Engine, type Logger } from "@quire/core";
import { openDatabase } from "@quire/core/node";
import { createFileHandler, createHandler } from "@quire/http-adapter";
import { createMcpHandler } from "@quire/mcp-adapter";
import { resolveAuthSecret } from "./auth-secret.js";
import type { ServerConfig } from "./config.js";
import type { Env } from "./env-values.js";
import { createNodeBridge } from "./node-bridge.js";
import { createStorage, localMediaPath } from "./storage.js";

/** A started server. */
export interface RunningServer {
  /** Where the site answers: `http://HOST:PORT<prefix>`. */
  url: string;
  port: number;
  engine: Engine;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then closes the database. */
  close(graceMs?: number): Promise<void>;
}

/** Sign-in attempts a client may make per minute (docs/authentication.md § Rate limits). */
export const signInAttemptsPerMinute = 10;

/** Options for {@link startServer}. */
export interface StartServerOptions {
  /** Run pending migrations first (default true). A worker process leaves it to the primary. */
  migrate?: boolean;
}

/** Opens the database, migrates it, and serves the engine (and local media) over node:http. */
export async function startServer(
  config: ServerConfig,
  env: Env,
  logger: Logger,
  options: StartServerOptions = {},
): Promise<RunningServer> {
  await mkdir(config.dataDir, { recursive: true });
  // Generated on first start when AUTH_SECRET is unset, so it is stable before sessions need it.
  const authSecret = await resolveAuthSecret(config);
  const storage = await createStorage(config, env);
  const engine = await openEngine(config, logger, storage);
  if (options.migrate !== false) await migrateOrClose(engine, logger);
  const prefix = config.site.pathPrefix;
  const handler = createHandler(engine, {
    devApiToken: config.devApiToken,
    internalAdminToken: config.internalAdminToken,
    corsOrigins: config.corsOrigins,
    clientAddress: (request) => clientAddress(request),
    // Feeds, sitemap.xml and robots.txt link under SITE_ORIGIN when it is set (docs/feeds.md).
    siteOrigin: config.site.origin,
    // Public answers kept by site version, per process (RESPONSE_CACHE, docs/caching.md).
    responseCache: config.responseCache.enabled ? { maxBytes: config.responseCache.maxBytes } : false,
    // Upload bodies straight from Node's request stream: no Web-stream conversion on the way.
    requestBody: (request) => bridge.rawBody(request),
    // POST /api/mcp: the MCP tools over JSON-RPC, behind the same authentication (docs/mcp.md).
    mcp: createMcpHandler(engine),
    // Owner sign-in at /signin: a session cookie signed with AUTH_SECRET, Secure behind https
    // (SITE_ORIGIN https, or X-Forwarded-Proto https from a trusted proxy). docs/authentication.md
    sessions: {
      secret: authSecret,
      secure: (request) =>
        new URL(request.url).protocol === "https:" ||
        (config.site.origin ?? "").startsWith("https:") ||
        (config.trustProxy && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https"),
    },
    // Per client (the proxy's forwarded address when TRUST_PROXY=true), in this process's memory.
    rateLimit: config.rateLimit.enabled
      ? { signInPerMinute: signInAttemptsPerMinute, searchPerMinute: config.rateLimit.searchPerMinute }
      : false,
    logger,
  });
  // Local files are served here; S3 and R2 objects are served by their own public URLs.
  const mediaPrefix = `${localMediaPath(config)}/`;
  const files =
    config.storageDriver === "local" ? createFileHandler(storage, { prefix: mediaPrefix }) : undefined;
  const route = (request: Request) =>
    files && new URL(request.url).pathname.startsWith(mediaPrefix) ? files(request) : handler(request);
  const cleanup = scheduleUploadCleanup(engine, logger);
  let closing = false;
  const bridge = createNodeBridge(route, {
    onError: (error) => logger.error("unexpected error", { error: describe(error) }),
    closing: () => closing,
    bodyIdleMs: config.timeouts.bodyIdleMs,
  });
  const clientAddress = (request: Request): string | undefined => {
    const socketAddress = bridge.remoteAddress(request);
    return config.trustProxy ? (forwardedFor(request) ?? socketAddress) : socketAddress;
  };
  const server = createServer(nodeServerOptions(config.timeouts), bridge.listener);
  const port = await listen(server, config.port, config.host).catch(async (error: unknown) => {
    await engine.close();
    throw error;
  });
  const host = isIPv6(config.host) ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}${prefix}`,
    port,
    engine,
    async close(graceMs = 10_000) {
      closing = true;
      clearInterval(cleanup);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
      await engine.close();
    },
  };
}

/**
 * node:http's limits from the configured timeouts. Node's default `requestTimeout` (300 s) cuts a
 * request not wholly received in time however steadily its body arrives: a 50 MiB upload part
 * then never completes over an uplink under about 1.4 Mbit/s. Here the whole request gets
 * `REQUEST_TIMEOUT_SECONDS` (1 hour by default), and a body that stops arriving is cut by the
 * bridge after `REQUEST_BODY_IDLE_SECONDS` (node-bridge.ts). The headers keep Node's 60 s (or the
 * request's limit if it is shorter), also when the request has none, so a client that never
 * finishes its headers still holds no connection for long.
 */
export function nodeServerOptions(timeouts: ServerConfig["timeouts"]): ServerOptions {
  const headersTimeout = timeouts.requestMs === 0 ? 60_000 : Math.min(60_000, timeouts.requestMs);
  return { requestTimeout: timeouts.requestMs, headersTimeout };
}

async function migrateOrClose(engine: Engine, logger: Logger): Promise<void> {
  try {
    const applied = await engine.migrate();
    if (applied.length > 0) logger.info("applied database migrations", { migrations: applied });
  } catch (error) {
    await engine.close();
    throw error;
  }
}

/**
 * What a cluster's primary does once before forking workers (docs/scaling.md): creates the data
 * folder and the generated auth secret, and runs pending migrations, so workers neither race to
 * create them nor migrate at once.
 */
export async function prepareSite(config: ServerConfig, logger: Logger): Promise<void> {
  await mkdir(config.dataDir, { recursive: true });
  await resolveAuthSecret(config);
  const engine = await openEngine(config, logger);
  await migrateOrClose(engine, logger);
  await engine.close();
}

/** Opens the configured database (creating a SQLite file's folder) as an engine; does not migrate. */
export async function openEngine(
  config: ServerConfig,
  logger: Logger,
  storage?: Awaited<ReturnType<typeof createStorage>>,
): Promise<Engine> {
  if (config.database.kind === "sqlite" && config.database.url !== ":memory:") {
    await mkdir(path.dirname(config.database.url), { recursive: true });
  }
  const db = await openDatabase({ url: config.database.url });
  return createEngine({
    db,
    storage,
    logger,
    config: { uploadMaxBytes: config.uploadMaxBytes },
    // The environment's site settings are the fallbacks of the engine's settings store: a value the
    // site owner stores (PUT /api/settings) wins over them, at once (docs/settings.md).
    settings: config.siteSettings,
  });
}

/** Expired upload sessions and their bytes are removed every five minutes. @see docs/media.md */
function scheduleUploadCleanup(engine: Engine, logger: Logger): NodeJS.Timeout {
  const timer = setInterval(() => {
    engine.cleanupExpiredUploads().catch((error: unknown) => {
      logger.warn("upload cleanup failed", { error: describe(error) });
    });
  }, 5 * 60_000);
  timer.unref();
  return timer;
}

/** Behind a trusted proxy: the address the nearest proxy saw, the last `X-Forwarded-For` entry. */
function forwardedFor(request: Request): string | undefined {
  const last = request.headers.get("x-forwarded-for")?.split(",").pop()?.trim();
  return last || undefined;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}
