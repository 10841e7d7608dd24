import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createTestEngine, testDatabaseKind } from "../testing/test-engine.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe.skipIf(testDatabaseKind() !== "postgres")("a write undone by a deadlock", () => {
  it("is recognised by the dialect as a write conflict (the engine answers those as CONFLICT, not a 500)", async () => {
    const { engine, reopen, cleanup } = await createTestEngine();
    cleanups.push(cleanup);
    const a = await engine.posts.create({ format: "note", bodyMarkdown: "a" });
    const b = await engine.posts.create({ format: "note", bodyMarkdown: "b" });
    const other = await reopen();
    cleanups.push(() => other.destroy());
    const lock = (db: typeof other, id: string) =>
      sql`select id from posts where id = ${id} for update`.execute(db);
    let release!: () => void;
    const bothHoldOne = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = 0;
    const holdThenTake = (db: typeof other, first: string, second: string) =>
      db.transaction().execute(async (trx) => {
        await lock(trx, first);
        if (++held === 2) release();
        await bothHoldOne;
        await lock(trx, second);
      });
    const outcomes = await Promise.allSettled([
      holdThenTake(engine.context.db, a.id, b.id),
      holdThenTake(other, b.id, a.id),
    ]);
    const failures = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason] : []));
    expect(failures).toHaveLength(1);
    expect(engine.context.dialect.isWriteConflict(failures[0])).toBe(true);
    expect(engine.context.dialect.isUniqueViolation(failures[0])).toBe(false);
  });
});
