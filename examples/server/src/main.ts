import { ConfigError, loadConfig, type ServerConfig } from "./config.js";
import { createJsonLogger } from "./logger.js";
import { type RunningServer, startServer } from "./server.js";

/** How long in-flight requests may take to finish after SIGINT/SIGTERM. */
const shutdownGraceMs = 10_000;

const logger = createJsonLogger();

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
let server: RunningServer;
try {
  config = loadConfig(process.env);
  for (const warning of config.warnings) logger.warn(warning);
  server = await startServer(config, process.env, logger);
} catch (error) {
  fail(error);
}

process.stdout.write(
  `Quire listening on ${server.url}\n` +
    "Create an API token (from the repository root): pnpm quire token create <name>\n",
);

let stopping = false;
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) {
    logger.warn("second signal: exiting without waiting", { signal });
    process.exit(1);
  }
  stopping = true;
  logger.info("shutting down", { signal });
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
process.on("unhandledRejection", (reason) => {
  logger.error("unhandled rejection", {
    error: reason instanceof Error ? (reason.stack ?? reason.message) : String(reason),
  });
});
