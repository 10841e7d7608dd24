import { afterAll, beforeAll, beforeEach, onTestFinished } from "vitest";
import type { Engine } from "../src/engine.js";
import { createTestEngine } from "../src/testing/test-engine.js";

export { codeOf } from "../src/testing/error-code.js";

/** The fixed clock of a test engine. */
export type TestClock = Awaited<ReturnType<typeof createTestEngine>>["clock"];

/**
 * A test engine on a fresh database for the current test (call it in a test or in `beforeEach`);
 * it is closed when the test finishes.
 */
export async function openTestEngine(
  options?: Parameters<typeof createTestEngine>[0],
): Promise<{ engine: Engine; clock: TestClock }> {
  const { engine, clock, cleanup } = await createTestEngine(options);
  onTestFinished(cleanup);
  return { engine, clock };
}

/** Follows `nextCursor` to the end of a list; returns every page. */
export async function walkPages<Page extends { nextCursor: string | null }>(
  read: (cursor: string | undefined) => Promise<Page>,
  maxPages = 1000,
): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    pages.push(page);
    cursor = page.nextCursor ?? undefined;
    if (pages.length > maxPages) throw new Error("walk did not end");
  } while (cursor);
  return pages;
}

/**
 * One engine per test file, emptied before each test: a fresh database per test costs a migration
 * each time (and on a shared PostgreSQL server, every migration is a chance to race another
 * suite's schema drop in Kysely's table introspection).
 */
export function useTestSite(options: { now: number }): {
  readonly engine: Engine;
  readonly clock: TestClock;
} {
  let current: Awaited<ReturnType<typeof createTestEngine>> | undefined;
  beforeAll(async () => {
    current = await createTestEngine({ now: options.now });
  });
  afterAll(() => current?.cleanup());
  beforeEach(async () => {
    if (!current) return;
    const { db } = current.engine.context;
    for (const table of ["media", "posts", "custom_urls", "site_addresses"] as const)
      await db.deleteFrom(table).execute();
    current.clock.set(options.now);
  });
  return {
    get engine() {
      return (current as NonNullable<typeof current>).engine;
    },
    get clock() {
      return (current as NonNullable<typeof current>).clock;
    },
  };
}
