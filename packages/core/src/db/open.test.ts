import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { testDatabaseKind } from "../testing/test-engine.js";
import { openDatabase } from "./open.js";

describe.skipIf(testDatabaseKind() !== "postgres")("openDatabase on PostgreSQL", () => {
  it("survives the server dropping idle connections and keeps answering", async () => {
    const url = process.env.QUIRE_TEST_PG_URL as string;
    const dropped: Error[] = [];
    const db = await openDatabase({ url, poolSize: 2, onError: (error) => dropped.push(error) });
    const admin = await openDatabase({ url, poolSize: 1 });
    try {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
      await sql`select pg_terminate_backend(${rows[0]?.pid})`.execute(admin);
      await expect.poll(() => dropped.length, { timeout: 5000 }).toBeGreaterThan(0);
      const again = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(again.rows[0]?.one).toBe(1);
    } finally {
      await db.destroy();
      await admin.destroy();
    }
  });
});
