// The README's test command: every suite on SQLite, then the core and HTTP suites again on a
// real PostgreSQL server started here on loopback (or the one in QUIRE_TEST_PG_URL).
import { spawnSync } from "node:child_process";
import { findPostgresBin, startPostgres } from "./postgres.mjs";

const extraArgs = process.argv.slice(2);
const databaseSuites = ["packages/core", "packages/http-adapter", "examples"];

function vitest(args, env) {
  const result = spawnSync("pnpm", ["exec", "vitest", "run", ...args], {
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
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
  const args = extraArgs.length > 0 ? extraArgs : databaseSuites;
  failed = vitest(args, { QUIRE_TEST_DATABASE: "postgres", QUIRE_TEST_PG_URL: url }) !== 0 || failed;
  await server?.stop();
} else if (process.env.CI) {
  console.error("No PostgreSQL server binaries found and QUIRE_TEST_PG_URL unset: cannot run the PostgreSQL suites.");
  failed = true;
} else {
  console.warn("\nSkipped the PostgreSQL run: no server binaries found and QUIRE_TEST_PG_URL unset.");
}
process.exit(failed ? 1 : 0);
