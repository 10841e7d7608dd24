// The README's test command: every suite on SQLite, then the core and HTTP suites again on a
// real PostgreSQL server started here on loopback (or the one in QUIRE_TEST_PG_URL).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findPostgresBin, startPostgres } from "./postgres.mjs";

const extraArgs = process.argv.slice(2);
const databaseSuites = ["packages/core", "packages/http-adapter", "packages/mcp-adapter", "examples"];

const totals = { passed: 0, failed: 0, skipped: 0 };

function vitest(args, env) {
  const report = join(mkdtempSync(join(tmpdir(), "quire-vitest-")), "report.json");
  const result = spawnSync(
    "pnpm",
    [
      "exec",
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
      ...args,
    ],
    { stdio: "inherit", env: { ...process.env, ...env } },
  );
  if (existsSync(report)) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = JSON.parse(
      readFileSync(report, "utf8"),
    );
    totals.passed += numPassedTests;
    totals.failed += numFailedTests;
    totals.skipped += numPendingTests + numTodoTests;
  }
  return result.status ?? 1;
}

console.log("\n== Suites on SQLite ==");
let failed = vitest(extraArgs, { QUIRE_TEST_DATABASE: "sqlite" }) !== 0;

let url = process.env.QUIRE_TEST_PG_URL;
let server = null;
if (!url && findPostgresBin()) {
  server = await startPostgres();
  url = server.url;
}
if (url) {
  console.log("\n== Core, HTTP and server suites on PostgreSQL ==");
  // Core's rendering never touches the database: its (long) differential tests run once, above.
  const args =
    extraArgs.length > 0 ? extraArgs : [...databaseSuites, "--exclude", "packages/core/src/render/**"];
  failed = vitest(args, { QUIRE_TEST_DATABASE: "postgres", QUIRE_TEST_PG_URL: url }) !== 0 || failed;
  await server?.stop();
} else if (process.env.CI) {
  console.error(
    "No PostgreSQL server binaries found and QUIRE_TEST_PG_URL unset: cannot run the PostgreSQL suites.",
  );
  failed = true;
} else {
  console.warn("\nSkipped the PostgreSQL run: no server binaries found and QUIRE_TEST_PG_URL unset.");
}
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failed ? 1 : 0);
