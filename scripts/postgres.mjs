// Starts a throwaway PostgreSQL server on 127.0.0.1 for tests and benchmarks.
// initdb and postgres refuse to run as root, so as root they run as the `postgres` user.
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The folder with initdb/postgres: $PG_BIN, else the newest /usr/lib/postgresql/<n>/bin. */
export function findPostgresBin() {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, "bin");
    if (existsSync(join(bin, "postgres"))) return bin;
  }
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

function asPostgresUser(command, args) {
  const isRoot = process.getuid?.() === 0;
  return isRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
}

/** Starts a server; resolves to `{ url, stop }`. */
export async function startPostgres() {
  const bin = findPostgresBin();
  if (!bin) throw new Error("PostgreSQL server binaries not found (set PG_BIN or install postgresql)");
  const dir = mkdtempSync(join(tmpdir(), "quire-pg-"));
  chmodSync(dir, 0o777);
  const dataDir = join(dir, "data");
  const isRoot = process.getuid?.() === 0;
  if (isRoot) spawnSync("chown", ["postgres", dir]);
  const [initCommand, initArgs] = asPostgresUser(join(bin, "initdb"), [
    "-D",
    dataDir,
    "-U",
    "postgres",
    "-A",
    "trust",
    "--no-sync",
    "-E",
    "UTF8",
    "--locale=C",
  ]);
  const init = spawnSync(initCommand, initArgs, { encoding: "utf8" });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const [command, args] = asPostgresUser(join(bin, "postgres"), [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    `unix_socket_directories=${dir}`,
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "max_connections=200",
  ]);
  // The server's log goes to a file, not a pipe: scripts/test.mjs waits for vitest synchronously,
  // so nothing would read a pipe meanwhile, and once its buffer filled every backend that logs (an
  // ERROR, say) would block on the write and hold its locks.
  const logPath = join(dir, "server.log");
  const logFd = openSync(logPath, "a");
  const server = spawn(command, args, { stdio: ["ignore", "ignore", logFd] });
  closeSync(logFd);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitUntilReady(bin, port, () => (existsSync(logPath) ? readFileSync(logPath, "utf8") : ""));
  return {
    url,
    stop: async () => {
      // runuser does not forward signals, so signal the postmaster itself (fast shutdown).
      const exited = new Promise((resolve) => server.once("exit", resolve));
      const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      process.kill(postmaster, "SIGINT");
      const timer = setTimeout(() => process.kill(postmaster, "SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilReady(bin, port, log) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const ready = spawnSync(join(bin, "pg_isready"), ["-h", "127.0.0.1", "-p", String(port)], {
      encoding: "utf8",
    });
    if (ready.status === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`PostgreSQL did not start:\n${log()}`);
}
