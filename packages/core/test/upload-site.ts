import type { KyselyPlugin } from "kysely";
import { onTestFinished } from "vitest";
import { createEngine, type Engine } from "../src/engine.js";
import { sequentialIds } from "../src/shared/ids.js";
import { fixedClock } from "../src/shared/time.js";
import { openTestDatabase } from "../src/testing/test-engine.js";
import { createMemoryStorage, type MemoryStorage } from "./memory-storage.js";

/** Database faults a test can switch on: every insert into the named table throws. */
export interface DatabaseFaults {
  failInsertsInto: string | undefined;
}

/** An engine on a fresh database and a {@link MemoryStorage}, with switchable faults. */
export interface UploadSite {
  engine: Engine;
  clock: ReturnType<typeof fixedClock>;
  storage: MemoryStorage;
  faults: DatabaseFaults;
}

/**
 * Small multipart settings (files above 16 bytes go in parts of 8) so multipart relays stay tiny.
 * The engine is closed when the test finishes.
 */
export async function openUploadSite(options: { now?: number } = {}): Promise<UploadSite> {
  const { db, cleanup } = await openTestDatabase();
  onTestFinished(cleanup);
  const clock = fixedClock(options.now);
  const storage = createMemoryStorage(() => clock.now());
  const faults: DatabaseFaults = { failInsertsInto: undefined };
  const engine = createEngine({
    db: db.withPlugin(failingInserts(faults)),
    clock,
    ids: sequentialIds(),
    storage,
    config: { uploadMultipartThreshold: 16, uploadPartSize: 8 },
  });
  await engine.migrate();
  return { engine, clock, storage, faults };
}

/** A plugin that makes inserts into `faults.failInsertsInto` fail as a dropped connection would. */
function failingInserts(faults: DatabaseFaults): KyselyPlugin {
  return {
    transformQuery({ node }) {
      if (node.kind === "InsertQueryNode" && node.into?.table.identifier.name === faults.failInsertsInto) {
        throw new Error("connection terminated unexpectedly");
      }
      return node;
    },
    transformResult: async ({ result }) => result,
  };
}

/**
 * A storage step that never finishes, as in a process killed there: `reached` resolves once a call
 * arrives at it, `release()` lets that call (and later ones) go on.
 */
export function hangAt(storage: MemoryStorage, step: string): { reached: Promise<void>; release(): void } {
  let arrive: () => void = () => {};
  const reached = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  storage.fault = async (name) => {
    if (name !== step) return;
    arrive();
    await released;
  };
  return {
    reached,
    release: () => {
      storage.fault = undefined;
      release();
    },
  };
}

/** `count` bytes of a repeating pattern. */
export function bytes(count: number, seed = 1): Uint8Array {
  return Uint8Array.from({ length: count }, (_, i) => (i * 31 + seed) % 251);
}
