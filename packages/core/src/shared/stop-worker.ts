import type { Worker } from "node:worker_threads";

/**
 * Asks a helper thread to close (its connection first: it answers "close" by closing it and its
 * port) and waits for it to exit, terminating it after `graceMs` if it does not.
 */
export async function stopWorker(worker: Worker, graceMs = 5000): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.postMessage("close");
  const timer = setTimeout(() => void worker.terminate(), graceMs);
  await exited;
  clearTimeout(timer);
}
