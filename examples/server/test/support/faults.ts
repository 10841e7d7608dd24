import { closeSync, constants, openSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { createEngine, type Engine } from "@quire/core";
import { openDatabase } from "@quire/core/node";
import { createFsStorage } from "@quire/storage-fs";
import { sql } from "kysely";

/** The database a test site's server uses: its URL, or the default SQLite file in the data folder. */
export function databaseUrlOf(env: Record<string, string>): string {
  return env.DATABASE_URL ?? path.join(env.DATA_DIR as string, "quire.db");
}

/** The engine over a site's database and media folder, as another process would open it, on `clock`. */
export async function openSiteEngine(env: Record<string, string>, now: () => number): Promise<Engine> {
  const db = await openDatabase({ url: databaseUrlOf(env) });
  const storage = createFsStorage({
    root: path.join(env.DATA_DIR as string, "media"),
    publicBaseUrl: "/media",
  });
  return createEngine({ db, storage, clock: { now } });
}

/**
 * Holds the database's write lock (SQLite: `BEGIN IMMEDIATE`) or, on PostgreSQL, a SHARE lock on
 * `tables` (reads go on, writes to them wait), so a server's transaction cannot commit. Resolves
 * once held; `release()` rolls back and disconnects.
 */
export async function holdWrites(
  env: Record<string, string>,
  tables: string[],
): Promise<{ release(): Promise<void> }> {
  const url = databaseUrlOf(env);
  const postgres = /^postgres(ql)?:/.test(url);
  const db = await openDatabase({ url });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = () => {};
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const session = db.connection().execute(async (connection) => {
    if (postgres) {
      await sql`begin`.execute(connection);
      await sql.raw(`lock table ${tables.join(", ")} in share mode`).execute(connection);
    } else {
      await sql`begin immediate`.execute(connection);
    }
    held();
    await released;
    await sql`rollback`.execute(connection);
  });
  await Promise.race([holding, session]);
  return {
    release: async () => {
      release();
      await session;
      await db.destroy();
    },
  };
}

/** Polls `check` every few milliseconds until it answers true; throws after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Every file under `dir`, as paths relative to it (`/`-separated); none when it is missing. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() || entry.isFIFO())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
    .sort();
}

/** The size of a file, or -1 when it is missing. */
export async function sizeOf(file: string): Promise<number> {
  return (await stat(file).catch(() => null))?.size ?? -1;
}

/**
 * Opens a FIFO for writing once a reader has it open (non-blocking: ENXIO until then), which lets
 * that reader's open finish and leaves its read waiting for bytes that never come. Returns the
 * descriptor, or null while no reader is there.
 */
export function openFifoWriter(file: string): number | null {
  try {
    return openSync(file, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENXIO") return null;
    throw error;
  }
}

/** Closes a descriptor from {@link openFifoWriter}. */
export function closeFd(fd: number): void {
  closeSync(fd);
}

/**
 * A request whose body the test sends piece by piece (with its full `Content-Length` announced),
 * so a server can be killed while it is still receiving. `answer` settles with the response, or
 * with the error a dropped connection gives.
 */
export function streamingRequest(
  url: string,
  options: { method: string; headers: Record<string, string>; length: number },
): { send(bytes: Uint8Array): Promise<void>; answer: Promise<{ status: number; body: string } | Error> } {
  const req = httpRequest(url, {
    method: options.method,
    headers: { ...options.headers, "content-length": String(options.length) },
  });
  const answer = new Promise<{ status: number; body: string } | Error>((resolve) => {
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", resolve);
    });
    req.on("error", resolve);
  });
  return {
    send: (bytes) =>
      new Promise((resolve, reject) => req.write(bytes, (error) => (error ? reject(error) : resolve()))),
    answer,
  };
}
