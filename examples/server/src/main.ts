import cluster from "node:cluster";
import { isStopMessage, type ListeningMessage, runPrimary } from "./cluster.js";
import { ConfigError, loadConfig, type ServerConfig } from "./config.js";
import { createJsonLogger } from "./logger.js";
import { prepareSite, type RunningServer, startServer } from "./server.js";

/** How long in-flight requests may take to finish after SIGINT/SIGTERM. */
const shutdownGraceMs = 10_000;

const logger = createJsonLogger();
const tokenHint =
  "Create an API token (from the repository root): pnpm quire token create <name>\n" +
  "Or set the owner password (pnpm quire owner password) and sign in at /signin\n";

function fail(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`Configuration error: ${error.message}\n`);
  } else {
    process.stderr.write(
      `Quire could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
  process.exit(1);
}

let config: ServerConfig;
try {
  config = loadConfig(process.env);
} catch (error) {
  fail(error);
}

if (config.workers > 1 && cluster.isPrimary) {
  await runClusterPrimary(config);
} else {
  await runServer(config);
}

/** Serves in this process: the whole server (WORKERS=1), or one worker of a cluster. */
async function runServer(config: ServerConfig): Promise<void> {
  const worker = cluster.isWorker;
  let server: RunningServer | undefined;
  let stopping = false;
  if (worker) {
    // Listening from the start: a stop may come while this worker is still starting.
    process.on("message", (message) => {
      if (isStopMessage(message)) void stop("primary");
    });
    // The primary is gone (killed outright): stop rather than serve on unsupervised.
    process.on("disconnect", () => void stop("primary"));
  }
  try {
    // A worker's primary printed the warnings and ran the migrations before forking it.
    if (!worker) for (const warning of config.warnings) logger.warn(warning);
    server = await startServer(config, process.env, logger, { migrate: !worker });
  } catch (error) {
    fail(error);
  }
  if (stopping) {
    await server.close(shutdownGraceMs);
    process.exit(0);
  }
  if (worker) {
    const listening: ListeningMessage = { type: "quire:listening", url: server.url };
    process.send?.(listening);
  } else {
    process.stdout.write(`Quire listening on ${server.url}\n${tokenHint}`);
  }

  async function stop(signal: string): Promise<void> {
    if (stopping) {
      // The primary's stop request after a terminal's Ctrl-C reached this worker too: one stop.
      if (signal === "primary") return;
      logger.warn("second signal: exiting without waiting", { signal });
      process.exit(1);
    }
    stopping = true;
    if (!server) return; // still starting: it closes as soon as it has started
    if (!worker) logger.info("shutting down", { signal });
    try {
      await server.close(shutdownGraceMs);
      process.exit(0);
    } catch (error) {
      logger.error("shutdown failed", { error: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    }
  }

  process.on("SIGINT", (signal) => void stop(signal));
  process.on("SIGTERM", (signal) => void stop(signal));
}

/** WORKERS > 1: migrate once, fork the workers, restart those that die, stop them all on a signal. */
async function runClusterPrimary(config: ServerConfig): Promise<void> {
  for (const warning of config.warnings) logger.warn(warning);
  try {
    await prepareSite(config, logger);
  } catch (error) {
    fail(error);
  }
  const primary = runPrimary({
    workers: config.workers,
    logger,
    graceMs: shutdownGraceMs,
    onListening: (url) => {
      process.stdout.write(
        `Quire listening on ${url}\n${config.workers} worker processes share the port\n${tokenHint}`,
      );
    },
  });
  void primary.failed.then(async (error) => {
    await primary.stop();
    fail(error);
  });
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn("second signal: exiting without waiting", { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info("shutting down", { signal, workers: config.workers });
    await primary.stop();
    process.exit(0);
  };
  process.on("SIGINT", (signal) => void stop(signal));
  process.on("SIGTERM", (signal) => void stop(signal));
}

process.on("unhandledRejection", (reason) => {
  logger.error("unhandled rejection", {
    error: reason instanceof Error ? (reason.stack ?? reason.message) : String(reason),
  });
});
