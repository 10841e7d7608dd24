import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createEngine, type Engine, fixedClock, sequentialIds } from "@quire/core";
import { createTestEngine } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import { onTestFinished } from "vitest";

/** The clock both engines read. */
export const twoEnginesNow = 1_700_000_000;

/**
 * Two engines, each with its own connections, on one database (one SQLite file or one PostgreSQL
 * schema) and one local store, as two processes or app servers sharing them would run; closed when
 * the test finishes.
 */
export async function openTwoEngines(): Promise<{ first: Engine; second: Engine }> {
  const root = await mkdtemp(path.join(tmpdir(), "quire-engines-"));
  const storage = createFsStorage({ root, publicBaseUrl: "/media" });
  const first = await createTestEngine({ now: twoEnginesNow, poolSize: 8, storage });
  const second = createEngine({
    db: await first.reopen(),
    storage,
    clock: fixedClock(twoEnginesNow),
    // IDs far above the first engine's, as two processes' random IDs never meet.
    ids: sequentialIds(2 ** 40),
  });
  onTestFinished(async () => {
    await second.close();
    await first.cleanup();
    await rm(root, { recursive: true, force: true });
  });
  return { first: first.engine, second };
}
