/**
 * The long fuzz run: `pnpm fuzz [--requests=100000] [--db=sqlite,postgres] [--seed=1] [--site-requests=2000]`.
 * Sends generated requests to every route through the Fetch handler (the same generator and checks
 * as packages/http-adapter/test/fuzz.http.test.ts, which runs a short slice in CI), on SQLite and on
 * a throwaway PostgreSQL server (or QUIRE_TEST_PG_URL). A fresh site every `site-requests` requests
 * keeps the per-request store comparison cheap. Prints the figures recorded in docs/fuzzing.md and
 * writes every problem to bench/.data/fuzz-problems-<db>.json. Exits 1 when any problem was found.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { openFuzzSite } from "../packages/http-adapter/test/fuzz/fuzz-site.js";
import { type FuzzReport, type Problem, runFuzz } from "../packages/http-adapter/test/fuzz/run-fuzz.js";

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const total = Number(args.requests ?? 100_000);
const databases = (args.db ?? "sqlite,postgres").split(",") as ("sqlite" | "postgres")[];
const seed = Number(args.seed ?? 1);
const perSite = Number(args["site-requests"] ?? 2_000);
const dataDir = new URL("./.data/", import.meta.url).pathname;

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
);
console.log(`fuzz: ${total} requests per database, seed ${seed}, a fresh site every ${perSite} requests`);

let failed = false;
for (const database of databases) {
  const stop = await useDatabase(database);
  try {
    const summary = await fuzzDatabase(database);
    failed ||= summary.problems.length > 0;
  } finally {
    await stop();
  }
}
process.exit(failed ? 1 : 0);

async function fuzzDatabase(database: string): Promise<FuzzReport> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const summary: FuzzReport = {
    requests: 0,
    unsendable: 0,
    byStatus: {},
    byOperation: {},
    msByOperation: {},
    serverErrors: 0,
    slowest: { label: "", ms: 0 },
    problems: [],
    seconds: 0,
  };
  for (let site = 0; summary.requests < total; site++) {
    const fuzzSite = await openFuzzSite();
    try {
      const report = await runFuzz(fuzzSite, {
        requests: Math.min(perSite, total - summary.requests),
        seed: seed * 1_000_003 + site * 7_919,
        maxProblems: 200,
      });
      add(summary, report);
    } finally {
      await fuzzSite.close();
    }
    if (site % 5 === 4 || summary.requests >= total) {
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `  ${database}: ${summary.requests} requests, ${summary.serverErrors} × 5xx, ${summary.problems.length} problems, ${seconds.toFixed(0)} s`,
      );
    }
  }
  summary.seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  report(database, summary, (used.user + used.system) / 1e6);
  return summary;
}

function add(summary: FuzzReport, report: FuzzReport): void {
  summary.requests += report.requests;
  summary.unsendable += report.unsendable;
  summary.serverErrors += report.serverErrors;
  summary.problems.push(...report.problems);
  if (report.slowest.ms > summary.slowest.ms) summary.slowest = report.slowest;
  for (const [status, count] of Object.entries(report.byStatus))
    summary.byStatus[status] = (summary.byStatus[status] ?? 0) + count;
  for (const [name, count] of Object.entries(report.byOperation))
    summary.byOperation[name] = (summary.byOperation[name] ?? 0) + count;
  for (const [name, ms] of Object.entries(report.msByOperation))
    summary.msByOperation[name] = (summary.msByOperation[name] ?? 0) + ms;
}

function report(database: string, summary: FuzzReport, cpuSeconds: number): void {
  const kinds = new Map<string, number>();
  for (const problem of summary.problems) kinds.set(problem.kind, (kinds.get(problem.kind) ?? 0) + 1);
  console.log(`\n== ${database} ==`);
  console.log(
    `requests ${summary.requests} (${summary.unsendable} unsendable by the Fetch API), ${summary.seconds.toFixed(1)} s, ${(summary.requests / summary.seconds).toFixed(0)} requests/s, ${cpuSeconds.toFixed(0)} s of CPU in this process`,
  );
  console.log(
    `5xx ${summary.serverErrors}; problems ${summary.problems.length} ${JSON.stringify(Object.fromEntries(kinds))}`,
  );
  console.log(`slowest answer ${summary.slowest.ms.toFixed(0)} ms (${summary.slowest.label})`);
  console.log(`statuses ${JSON.stringify(Object.fromEntries(Object.entries(summary.byStatus).sort()))}`);
  console.log("requests and mean answer time (ms) by operation:");
  for (const [name, count] of Object.entries(summary.byOperation).sort()) {
    console.log(
      `  ${name.padEnd(26)} ${String(count).padStart(7)} ${((summary.msByOperation[name] ?? 0) / count).toFixed(2).padStart(8)}`,
    );
  }
  const file = `${dataDir}fuzz-problems-${database}.json`;
  rmSync(file, { force: true });
  if (summary.problems.length > 0) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(summary.problems.map(printable), null, 2));
    console.log(`problems written to ${file}`);
  }
}

function printable(problem: Problem) {
  const { body, ...request } = problem.request;
  return {
    ...problem,
    request: { ...request, body: body ? new TextDecoder().decode(body.slice(0, 2_000)) : undefined },
  };
}

/** Points the test engine at the database: SQLite, or PostgreSQL from QUIRE_TEST_PG_URL or a throwaway server. */
async function useDatabase(database: "sqlite" | "postgres"): Promise<() => Promise<void>> {
  process.env.QUIRE_TEST_DATABASE = database;
  if (database === "sqlite" || process.env.QUIRE_TEST_PG_URL) return async () => {};
  // @ts-expect-error: a plain .mjs script without types
  const { startPostgres } = await import("../scripts/postgres.mjs");
  const server = (await startPostgres()) as { url: string; stop(): Promise<void> };
  process.env.QUIRE_TEST_PG_URL = server.url;
  return async () => {
    await server.stop();
    delete process.env.QUIRE_TEST_PG_URL;
  };
}
