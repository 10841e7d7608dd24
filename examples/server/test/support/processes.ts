import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** The server package's folder, the cwd of every spawned process. */
export const serverDir = fileURLToPath(new URL("../..", import.meta.url));

/** Environment every spawned process gets: nothing from the test runner's own settings. */
function baseEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env };
}

/** A server process started with `node --import tsx src/main.ts`. */
export interface ServerProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:PORT<prefix>` as printed on the listening line. */
  url: string;
  port: number;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

function collect(child: ChildProcess) {
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { stdout: () => out, stderr: () => err, exited };
}

/** Starts the server and waits for its "listening" line (or its exit). */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "src/main.ts"], {
    cwd: serverDir,
    env: baseEnv({ HOST: "127.0.0.1", PORT: "0", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const io = collect(child);
  const line = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start:\n${io.stdout()}\n${io.stderr()}`)),
      30_000,
    );
    const check = () => {
      const match = /Quire listening on (http:\/\/127\.0\.0\.1:(\d+)\S*)/.exec(io.stdout());
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.on("data", check);
    void io.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${io.stdout()}\n${io.stderr()}`));
    });
  });
  return { child, url: line[1] as string, port: Number(line[2]), ...io };
}

/** Runs the server or CLI to completion. */
export async function runProcess(
  script: "src/main.ts" | "src/cli.ts",
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", script, ...args], {
    cwd: serverDir,
    env: baseEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const io = collect(child);
  const code = await io.exited;
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/**
 * A data folder, and a database of its own for one test file: the default SQLite file in the
 * folder, or with `QUIRE_TEST_DATABASE=postgres` a fresh PostgreSQL database created on the
 * `QUIRE_TEST_PG_URL` server and dropped afterwards.
 */
export async function createTestSite(): Promise<{
  env: Record<string, string>;
  dataDir: string;
  cleanup(): Promise<void>;
}> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "quire-server-"));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (process.env.QUIRE_TEST_DATABASE !== "postgres") {
    return { env: { DATA_DIR: dataDir }, dataDir, cleanup: async () => removeDir() };
  }
  const serverUrl = process.env.QUIRE_TEST_PG_URL;
  if (!serverUrl) throw new Error("QUIRE_TEST_DATABASE=postgres needs QUIRE_TEST_PG_URL");
  const name = `quire_server_${process.pid}_${randomBytes(4).toString("hex")}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    dataDir,
    cleanup: async () => {
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      removeDir();
    },
  };
}

async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
