import cluster, { type Worker } from "node:cluster";
import type { Logger } from "@quire/core";

/** A message a worker sends its primary once its server listens. */
export interface ListeningMessage {
  type: "quire:listening";
  url: string;
}

/** The message a primary sends a worker to stop gracefully. */
export const stopMessage = { type: "quire:stop" } as const;

/** Options for {@link runPrimary}. */
export interface PrimaryOptions {
  workers: number;
  logger: Logger;
  /** How long workers may take to finish in-flight requests after a stop. */
  graceMs: number;
  /** Called once, when every first worker listens, with the URL they printed. */
  onListening(url: string): void;
}

/** A cluster primary: how to stop it and what it has seen. */
export interface Primary {
  /** Asks every worker to stop gracefully, waits for them (killing those past the grace), resolves. */
  stop(): Promise<void>;
  /** Resolves when a first worker dies before the cluster listens: the start failed. */
  failed: Promise<Error>;
}

/** A worker that dies within this long after its start counts as failing; its next start waits longer. */
const healthyAfterMs = 30_000;
const firstRestartDelayMs = 250;
const maxRestartDelayMs = 15_000;

/**
 * Forks `workers` processes running this same entry point (the port is shared through the
 * primary: node:cluster hands connections out in turn). A worker that dies is replaced, after a
 * delay that doubles while restarts keep failing quickly (250 ms, up to 15 s) and resets once a
 * worker has lived 30 s. @see docs/scaling.md
 */
export function runPrimary(options: PrimaryOptions): Primary {
  const { logger } = options;
  let stopping = false;
  let started = false;
  let quickFailures = 0;
  const listening = new Set<number>();
  const startedAt = new Map<number, number>();
  let failStart: (error: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => {
    failStart = resolve;
  });

  const fork = (): Worker => {
    const worker = cluster.fork({ QUIRE_CLUSTER_WORKER: "1" });
    startedAt.set(worker.id, Date.now());
    worker.on("message", (message: unknown) => {
      if (!isListening(message)) return;
      listening.add(worker.id);
      if (!started && listening.size === options.workers) {
        started = true;
        options.onListening(message.url);
      }
    });
    return worker;
  };

  cluster.on("exit", (worker, code, signal) => {
    listening.delete(worker.id);
    const lived = Date.now() - (startedAt.get(worker.id) ?? Date.now());
    startedAt.delete(worker.id);
    if (stopping) return;
    if (!started) {
      failStart(new Error(`a worker exited before the server listened (code ${code}, signal ${signal})`));
      return;
    }
    quickFailures = lived >= healthyAfterMs ? 0 : quickFailures + 1;
    const delay =
      quickFailures === 0 ? 0 : Math.min(maxRestartDelayMs, firstRestartDelayMs * 2 ** (quickFailures - 1));
    logger.error("worker exited; starting another", {
      pid: worker.process.pid,
      code,
      signal,
      delayMs: delay,
    });
    setTimeout(() => {
      if (!stopping) fork();
    }, delay).unref();
  });

  for (let i = 0; i < options.workers; i++) fork();

  return {
    failed,
    async stop() {
      stopping = true;
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      await Promise.all(
        workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) return resolve();
              worker.once("exit", () => resolve());
              const kill = setTimeout(() => worker.process.kill("SIGKILL"), options.graceMs + 5_000);
              kill.unref();
              // A listening worker drains its requests; one still starting may not hear messages yet.
              if (listening.has(worker.id) && worker.isConnected()) worker.send(stopMessage);
              else worker.process.kill("SIGTERM");
            }),
        ),
      );
    },
  };
}

function isListening(message: unknown): message is ListeningMessage {
  return (
    typeof message === "object" &&
    message !== null &&
    (message as { type?: unknown }).type === "quire:listening" &&
    typeof (message as { url?: unknown }).url === "string"
  );
}

/** Whether a message from the primary asks this worker to stop. */
export function isStopMessage(message: unknown): boolean {
  return (
    typeof message === "object" &&
    message !== null &&
    (message as { type?: unknown }).type === stopMessage.type
  );
}
