/**
 * S3 streamed-put benchmark: `pnpm bench:s3 [--size-mib=1024] [--runs=5] [--part-mib=8] [--only=name,…]`.
 * Streams a file of random bytes, as a Node stream of 64 KiB chunks (what the reference server
 * hands a store from its socket), into `@quire/storage-s3`'s `put` with no length given, against
 * s3rver on 127.0.0.1 in a child process. Each put runs in a fresh child process that samples its
 * own RSS; every round runs every case once, in an order that rotates from round to round, against
 * the same server. Files live under bench/.data/s3. See bench/README.md § S3 streamed put.
 */

import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { benchReport } from "./report.js";

const MiB = 1024 * 1024;
const BUCKET = "quire-bench";
const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
const here = fileURLToPath(import.meta.url);
const dataDir = path.join(path.dirname(here), ".data", "s3");
// s3rver and the SDK are storage-s3's dependencies, not the workspace root's.
const fromStorageS3 = createRequire(path.join(path.dirname(here), "../packages/storage-s3/package.json"));
/** In a put child: seconds its client has spent in CompleteMultipartUpload requests. */
let completeSeconds = 0;
const args: Record<string, string | undefined> = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);

/** What a put child is told. */
interface PutJob {
  endpoint: string;
  case: string;
  file: string;
  warmFile: string;
  partSize: number;
}

/** What a put child reports. */
interface PutResult {
  seconds: number;
  /** Of `seconds`, the time in CompleteMultipartUpload, where s3rver joins the parts into the object. */
  completeSeconds: number;
  bytes: number;
  rssGrowth: number;
  /** CPU seconds (user + system) the putting process spent on the timed put. */
  cpuSeconds: number;
}

/** The case every other one is compared with, round by round. */
const REFERENCE = "PutObject, length known";

/** The commands the reference case sends; typed here, as the SDK resolves from storage-s3, not from bench/. */
interface SdkCommands {
  PutObjectCommand: new (input: {
    Bucket: string;
    Key: string;
    Body: Readable;
    ContentLength: number;
    ContentType: string;
  }) => never;
}

/** The cases, by name: each stores `body` (`size` bytes) under `key` on the loopback server. */
const cases: Record<
  string,
  (job: PutJob) => Promise<(key: string, body: Readable, size: number) => Promise<unknown>>
> = {
  // The reference: one streamed request with its length known, which no part buffering can beat.
  [REFERENCE]: async (job) => {
    const { PutObjectCommand } = (await import(fromStorageS3.resolve("@aws-sdk/client-s3"))) as SdkCommands;
    const client = await loopbackClient(job);
    return (Key, Body, ContentLength) =>
      client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body, ContentLength, ContentType: "x/y" }));
  },
  "storage.put, length unknown": async (job) => {
    const storage = await loopbackStorage(job);
    return (key, body) => storage.put(key, body, { contentType: "x/y" });
  },
};

if (args.s3rver === "true") await runS3rver();
else if (args.put === "true") await runPut(JSON.parse(process.env.QUIRE_BENCH_PUT ?? "{}") as PutJob);
else await main();

/** A client for the loopback server that adds the time of each CompleteMultipartUpload to `completeSeconds`. */
async function loopbackClient(job: PutJob) {
  const { createS3Client } = await import("../packages/storage-s3/src/index.js");
  const client = createS3Client({
    region: "us-east-1",
    endpoint: job.endpoint,
    forcePathStyle: true,
    credentials,
  });
  const send = client.send.bind(client);
  client.send = (async (command: { constructor: { name: string } }) => {
    if (command.constructor.name !== "CompleteMultipartUploadCommand") return send(command as never);
    const started = performance.now();
    try {
      return await send(command as never);
    } finally {
      completeSeconds += (performance.now() - started) / 1000;
    }
  }) as typeof client.send;
  return client;
}

/** The adapter on the loopback server, with the job's part size. */
async function loopbackStorage(job: PutJob) {
  const { createS3Storage } = await import("../packages/storage-s3/src/index.js");
  const client = await loopbackClient(job);
  return createS3Storage({ client, bucket: BUCKET, partSize: job.partSize, publicBaseUrl: "/" });
}

// ---------------------------------------------------------------------------------------------
// The children: s3rver, and one put per process.

async function runS3rver(): Promise<void> {
  const { default: S3rver } = (await import(fromStorageS3.resolve("s3rver"))) as {
    default: new (options: object) => { run(): Promise<{ port: number }>; close(): Promise<void> };
  };
  const directory = process.env.QUIRE_BENCH_S3_STORE ?? path.join(dataDir, "store");
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port } = await server.run();
  process.on("message", async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
    process.exit(0);
  });
  process.send?.({ type: "ready", port });
}

async function runPut(job: PutJob): Promise<void> {
  const make = cases[job.case];
  if (!make) throw new Error(`unknown case ${job.case}`);
  const put = await make(job);
  (globalThis as { gc?: () => void }).gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const storage = await loopbackStorage(job);
  const send = async (file: string, key: string) => {
    const size = statSync(file).size;
    const cpu = process.cpuUsage();
    completeSeconds = 0;
    const started = performance.now();
    await put(key, createReadStream(file, { highWaterMark: 64 * 1024 }), size);
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    const stored = await storage.head(key);
    if (stored?.size !== size) throw new Error(`stored ${stored?.size} bytes, not ${size}`);
    await storage.delete(key);
    return { seconds, completeSeconds, bytes: size, cpuSeconds: (user + system) / 1e6 };
  };
  // Untimed: a fresh process's first put runs cold code. Memory counts it, as it counts from idle.
  await send(job.warmFile, "warm-up.bin");
  const timed = await send(job.file, "big.bin");
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  process.send?.({ ...timed, rssGrowth: peak - baseline } satisfies PutResult);
  process.disconnect?.();
}

// ---------------------------------------------------------------------------------------------
// The parent: makes the files, starts the server, runs the rounds.

async function main(): Promise<void> {
  const report = benchReport("bench:s3");
  const { log } = report;
  const sizeMiB = Number(args["size-mib"] ?? 1024);
  const runs = Number(args.runs ?? 5);
  const partSize = Number(args["part-mib"] ?? 8) * MiB;
  const only = args.only?.split(",");
  const names = Object.keys(cases).filter((name) => !only || only.some((prefix) => name.startsWith(prefix)));
  mkdirSync(dataDir, { recursive: true });
  const file = await sourceFile(sizeMiB);
  const warmFile = await sourceFile(64);
  log(`Body: ${sizeMiB} MiB in 64 KiB chunks; part size ${partSize / MiB} MiB; ${runs} rounds\n`);

  // `--store=/dev/shm/…` puts s3rver's files in memory, taking the VM's disk (and its drift) out.
  const store = path.resolve(args.store ?? path.join(dataDir, "store"));
  log(`s3rver's files: ${store}\n`);
  const server = await startS3rver(store);
  const results = new Map<string, PutResult[]>(names.map((name) => [name, []]));
  try {
    for (let round = 0; round < runs; round++) {
      const order = names.map((_, index) => names[(index + round) % names.length] as string);
      for (const name of order) {
        const result = await runPutChild({ endpoint: server.endpoint, case: name, file, warmFile, partSize });
        results.get(name)?.push(result);
        log(
          `round ${round + 1} ${name}: ${mibps(result.bytes / result.seconds)} MiB/s (${result.seconds.toFixed(2)} s, of which complete ${result.completeSeconds.toFixed(2)} s), CPU ${result.cpuSeconds.toFixed(2)} s, RSS +${(result.rssGrowth / MiB).toFixed(1)} MiB`,
        );
      }
    }
  } finally {
    await server.stop();
  }

  // The VM's disk and CPU (and whatever else runs on it) drift from minute to minute, so each put
  // is also given as a share of the reference put timed in the same round.
  const reference = results.get(REFERENCE);
  const share = (rounds: PutResult[]) => {
    if (!reference || reference.length !== rounds.length) return "–";
    const shares = rounds.map((round, index) => rateOf(round) / rateOf(reference[index] as PutResult));
    return `${pct(median(shares))} (${pct(Math.min(...shares))}–${pct(Math.max(...shares))})`;
  };
  log(
    "\n| case | MiB/s, median (range) | % of PutObject, same round | MiB/s before complete | complete, s | client CPU, s | peak RSS growth, median (max) |",
  );
  log("|---|---|---|---|---|---|---|");
  for (const [name, rounds] of results) {
    const rates = rounds.map(rateOf);
    const sending = rounds.map(({ bytes, seconds, completeSeconds }) => bytes / (seconds - completeSeconds));
    const growth = rounds.map(({ rssGrowth }) => rssGrowth / MiB);
    const cpu = median(rounds.map(({ cpuSeconds }) => cpuSeconds));
    const complete = median(rounds.map(({ completeSeconds }) => completeSeconds));
    log(
      `| ${name} | ${mibps(median(rates))} (${mibps(Math.min(...rates))}–${mibps(Math.max(...rates))}) | ${share(rounds)} | ${mibps(median(sending))} | ${complete.toFixed(2)} | ${cpu.toFixed(2)} | ${median(growth).toFixed(1)} MiB (${Math.max(...growth).toFixed(1)} MiB) |`,
    );
  }
  log("\nMedians of the rounds; RSS growth is the put process's peak over its idle RSS, warm-up included.");
  report.save();
}

async function sourceFile(mib: number): Promise<string> {
  const file = path.join(dataDir, `source-${mib}.bin`);
  if (existsSync(file) && statSync(file).size === mib * MiB) return file;
  const block = randomBytes(MiB);
  async function* blocks() {
    for (let i = 0; i < mib; i++) {
      block[0] = i & 0xff;
      yield block;
    }
  }
  await pipeline(Readable.from(blocks()), createWriteStream(file));
  return file;
}

function childOf(flag: string, env: Record<string, string> = {}) {
  return fork(here, [flag], {
    execArgv: [
      "--conditions=source",
      "--import",
      "tsx",
      "--expose-gc",
      ...(process.env.QUIRE_BENCH_PROF && flag === "--put"
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.QUIRE_BENCH_PROF}`]
        : []),
    ],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}

async function startS3rver(store: string): Promise<{ endpoint: string; stop: () => Promise<void> }> {
  const child = childOf("--s3rver", { QUIRE_BENCH_S3_STORE: store });
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once("message", (message) => resolve(message as { port: number }));
    child.once("exit", (code) => reject(new Error(`s3rver exited (${code})`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ type: "stop" });
      await exited;
    },
  };
}

function runPutChild(job: PutJob): Promise<PutResult> {
  const child = childOf("--put", { QUIRE_BENCH_PUT: JSON.stringify(job) });
  return new Promise((resolve, reject) => {
    let result: PutResult | undefined;
    child.once("message", (message) => {
      result = message as PutResult;
    });
    child.once("exit", (code) =>
      result ? resolve(result) : reject(new Error(`put child exited (${code})`)),
    );
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function rateOf({ bytes, seconds }: PutResult): number {
  return bytes / seconds;
}

function pct(ratio: number): string {
  return `${(ratio * 100).toFixed(0)} %`;
}

function mibps(bytesPerSecond: number): string {
  return (bytesPerSecond / MiB).toFixed(0);
}
