/**
 * Upload benchmark: `pnpm bench:uploads [--size-mib=1024] [--oneshot-mib=5] [--oneshot-count=20] [--runs=5] [--only=relay,…]`.
 * Uploads a large file through the `relay` and `multipartRelay` transports (and relay with a
 * checksum) and a 5 MB image through the one-shot `POST /api/upload`, over HTTP on 127.0.0.1 to a
 * server in a child process (createHandler + createFileHandler on a local folder store, behind the
 * reference server's node:http bridge, which hands upload bodies over as Node streams). Each upload
 * runs right after a plain streamed copy of the same bytes on the same disk (fsynced, as the store
 * does) and is reported as a share of it, with the server's peak RSS growth sampled inside the
 * server. Files live under bench/.data/uploads. See bench/README.md § Uploads.
 * `QUIRE_BENCH_PROF=<dir>` writes a CPU profile of each server process there.
 */

import { fork } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { open, readFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { benchReport } from "./report.js";

const MiB = 1024 * 1024;
const here = fileURLToPath(import.meta.url);
const dataDir = path.join(path.dirname(here), ".data", "uploads");
const args: Record<string, string | undefined> = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const report = benchReport("bench:uploads");
const { log } = report;

/** What the server child is told. */
interface ServeOptions {
  dir: string;
  multipartThreshold: number;
  partSize: number;
}

if (args.serve === "true") await serve(JSON.parse(process.env.QUIRE_BENCH_SERVE ?? "{}") as ServeOptions);
else await main();

// ---------------------------------------------------------------------------------------------
// The server child: the Fetch handler on node:http, sampling its own RSS.

async function serve(options: ServeOptions): Promise<void> {
  const { createServer } = await import("node:http");
  const { createEngine } = await import("../packages/core/src/index.js");
  const { openDatabase } = await import("../packages/core/src/node.js");
  const { createFsStorage } = await import("../packages/storage-fs/src/index.js");
  const { createFileHandler, createHandler } = await import("../packages/http-adapter/src/index.js");
  const { createNodeBridge } = await import("../examples/server/src/node-bridge.js");

  const storage = createFsStorage({ root: path.join(options.dir, "media"), publicBaseUrl: "/media" });
  const db = await openDatabase({ url: path.join(options.dir, "site.db") });
  const engine = createEngine({
    db,
    storage,
    config: {
      uploadMaxBytes: 4 * 1024 * MiB,
      uploadMultipartThreshold: options.multipartThreshold,
      uploadPartSize: options.partSize,
    },
  });
  await engine.migrate();
  let bridge: ReturnType<typeof createNodeBridge> | undefined;
  const api = createHandler(engine, {
    devApiToken: "bench",
    clientAddress: (request) => bridge?.remoteAddress(request),
    requestBody: (request) => bridge?.rawBody(request),
  });
  const files = createFileHandler(storage, { prefix: "/media" });
  bridge = createNodeBridge(
    (request) => (new URL(request.url).pathname.startsWith("/media/") ? files(request) : api(request)),
    {
      onError: (error) => console.error("server error", error),
    },
  );
  const listener = bridge.listener;
  // The ceiling for comparison: node:http piping straight into a file, no engine and no Web streams.
  const server = createServer((req, res) => {
    if (req.url !== "/raw") return listener(req, res);
    const target = path.join(options.dir, "raw.bin");
    pipeline(req, createWriteStream(target))
      .then(() => open(target, "r+"))
      .then(async (handle) => {
        await handle.sync();
        await handle.close();
        res.writeHead(204).end();
      })
      .catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  let baseline = process.memoryUsage().rss;
  let peak = baseline;
  setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10).unref();
  process.on("message", (message: { type: string }) => {
    if (message.type === "mark") {
      (globalThis as { gc?: () => void }).gc?.();
      baseline = process.memoryUsage().rss;
      peak = baseline;
      process.send?.({ type: "marked", baseline });
    } else if (message.type === "peak") {
      peak = Math.max(peak, process.memoryUsage().rss);
      process.send?.({ type: "peak", baseline, peak, hwm: vmHwm() });
    } else if (message.type === "stop") {
      server.close();
      void engine.close().then(() => process.exit(0));
    }
  });
  const address = server.address();
  process.send?.({ type: "ready", port: typeof address === "object" && address ? address.port : 0 });
}

function vmHwm(): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// The parent: makes the file, times the copy and each upload.

interface ServerHandle {
  port: number;
  mark(): Promise<void>;
  peak(): Promise<{ baseline: number; peak: number; hwm: number | null }>;
  stop(): Promise<void>;
}

interface Result {
  name: string;
  bytes: number;
  /** Seconds sending the bytes (request start to response). */
  transfer: number;
  /** Seconds from init to the media record (includes complete). */
  total: number;
  rssGrowth: number;
}

async function main(): Promise<void> {
  const sizeMiB = Number(args["size-mib"] ?? 1024);
  const oneShotMiB = Number(args["oneshot-mib"] ?? 5);
  const oneShotCount = Number(args["oneshot-count"] ?? 20);
  const runs = Number(args.runs ?? 5);
  mkdirSync(dataDir, { recursive: true });
  const source = path.join(dataDir, `source-${sizeMiB}.bin`);
  if (!existsSync(source) || statSync(source).size !== sizeMiB * MiB) await makeFile(source, sizeMiB);
  const size = statSync(source).size;
  const checksum = await sha256File(source);

  log(`File: ${sizeMiB} MiB; ${runs} rounds each, every upload paired with a copy timed just before it\n`);

  const copyBig = () => timeCopy(source, path.join(dataDir, "copy.bin"));
  // A fresh server's first requests run cold code: each round first sends this file untimed.
  const warm = path.join(dataDir, "warm-up-128.bin");
  if (!existsSync(warm) || statSync(warm).size !== 128 * MiB) await makeFile(warm, 128);
  const warmSize = 128 * MiB;
  const scenarios: Scenario[] = [
    {
      name: "node:http → file (no engine)",
      threshold: 8 * 1024 * MiB,
      copy: copyBig,
      warmUp: (server) => raw(server, warm, warmSize),
      run: (server) => raw(server, source, size),
    },
    {
      name: "relay",
      threshold: 8 * 1024 * MiB,
      copy: copyBig,
      warmUp: (server) => relay(server, warm, warmSize, null),
      run: (server) => relay(server, source, size, null),
    },
    {
      name: "relay + checksumSha256",
      threshold: 8 * 1024 * MiB,
      copy: copyBig,
      warmUp: (server) => relay(server, warm, warmSize, null),
      run: (server) => relay(server, source, size, checksum),
    },
    ...[1, 2].map((concurrency) => ({
      name: `multipartRelay (50 MiB parts, ${concurrency} at a time)`,
      threshold: 64 * MiB,
      copy: copyBig,
      warmUp: (server: ServerHandle) => multipartRelay(server, warm, warmSize, concurrency),
      run: (server: ServerHandle) => multipartRelay(server, source, size, concurrency),
    })),
  ];
  const image = path.join(dataDir, `image-${oneShotMiB}.png`);
  if (!existsSync(image)) await makeImage(image, oneShotMiB);
  scenarios.push({
    name: `one-shot ${oneShotMiB} MB image × ${oneShotCount}`,
    threshold: 64 * MiB,
    copy: () => timeSmallCopies(image, oneShotCount),
    warmUp: (server) => oneShot(server, image, 2),
    run: (server) => oneShot(server, image, oneShotCount),
  });

  const only = args.only?.split(",");
  const results: Summary[] = [];
  for (const scenario of scenarios) {
    if (only && !only.some((name) => scenario.name.startsWith(name))) continue;
    results.push(await measure(runs, scenario));
  }

  log(
    "\n| upload | MiB/s (transfer) | MiB/s (init → record) | copy MiB/s | % of copy (init → record) | peak RSS growth |",
  );
  log("|---|---|---|---|---|---|");
  for (const result of results) {
    log(
      `| ${result.name} | ${mibps(result.transferRate)} | ${mibps(result.totalRate)} | ${mibps(result.copyRate)} | ${pct(result.ratio)} (${pct(result.ratioRange[0])}–${pct(result.ratioRange[1])}) | ${(result.rssGrowth / MiB).toFixed(1)} MiB |`,
    );
  }
  log("\nMedians of the rounds; the range is the lowest and highest round's % of its copy.");
  rmSync(path.join(dataDir, "copy.bin"), { force: true });
  report.save();
}

/** One upload case: how to run it, and the copy it is compared with. */
interface Scenario {
  name: string;
  /** The server's multipart threshold: decides relay or multipartRelay. */
  threshold: number;
  /** Times the plain copy of the same bytes; seconds. */
  copy: () => Promise<number>;
  /** Runs before the timed upload, on the same server, untimed. */
  warmUp: (server: ServerHandle) => Promise<unknown>;
  run: (server: ServerHandle) => Promise<Omit<Result, "rssGrowth">>;
}

/** A scenario's rounds, summed up. */
interface Summary {
  name: string;
  transferRate: number;
  totalRate: number;
  copyRate: number;
  /** Median over the rounds of (upload rate ÷ the copy rate of the same round). */
  ratio: number;
  ratioRange: [number, number];
  /** The largest growth of any round. */
  rssGrowth: number;
}

/**
 * Runs a scenario `runs` times, each on a fresh server, right after a copy of the same bytes: the
 * VM's disk and CPU speed drift by tens of percent within a minute, so an upload is compared with
 * the copy next to it, and the medians are reported.
 */
async function measure(runs: number, scenario: Scenario): Promise<Summary> {
  const rounds: { result: Result; copyRate: number }[] = [];
  for (let round = 0; round < runs; round++) {
    const copySeconds = await scenario.copy();
    const dir = path.join(dataDir, "site");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const server = await startServer({ dir, multipartThreshold: scenario.threshold, partSize: 50 * MiB });
    try {
      // Memory counts from the idle server, warm-up included: its pages are not free to hide growth.
      await server.mark();
      await scenario.warmUp(server);
      const timed = await scenario.run(server);
      const memory = await server.peak();
      const result = { ...timed, rssGrowth: memory.peak - memory.baseline };
      const copyRate = timed.bytes / copySeconds;
      rounds.push({ result, copyRate });
      log(
        `${scenario.name}: ${rate(timed.bytes, timed.transfer)} transfer, ${rate(timed.bytes, timed.total)} init → record, copy ${mibps(copyRate)} MiB/s, ${pct(timed.bytes / timed.total / copyRate)} of copy, RSS +${(result.rssGrowth / MiB).toFixed(1)} MiB (baseline ${(memory.baseline / MiB).toFixed(0)} MiB)`,
      );
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const ratios = rounds.map(({ result, copyRate }) => result.bytes / result.total / copyRate);
  return {
    name: scenario.name,
    transferRate: median(rounds.map(({ result }) => result.bytes / result.transfer)),
    totalRate: median(rounds.map(({ result }) => result.bytes / result.total)),
    copyRate: median(rounds.map(({ copyRate }) => copyRate)),
    ratio: median(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    rssGrowth: Math.max(...rounds.map(({ result }) => result.rssGrowth)),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function startServer(options: ServeOptions): Promise<ServerHandle> {
  const child = fork(here, ["--serve"], {
    execArgv: [
      "--conditions=source",
      "--import",
      "tsx",
      "--expose-gc",
      ...(process.env.QUIRE_BENCH_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.QUIRE_BENCH_PROF}`]
        : []),
    ],
    env: { ...process.env, QUIRE_BENCH_SERVE: JSON.stringify(options) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return;
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(message as T);
      };
      const onExit = (code: number | null) => reject(new Error(`server exited (${code}) before ${type}`));
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  return next<{ port: number }>("ready").then(({ port }) => ({
    port,
    mark: async () => {
      const marked = next("marked");
      child.send({ type: "mark" });
      await marked;
    },
    peak: async () => {
      const reply = next<{ baseline: number; peak: number; hwm: number | null }>("peak");
      child.send({ type: "peak" });
      return reply;
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ type: "stop" });
      await exited;
    },
  }));
}

async function relay(server: ServerHandle, file: string, size: number, checksum: string | null) {
  const started = performance.now();
  const { id, transport } = await api(server, "POST", "/api/uploads/init", {
    filename: "big.bin",
    contentType: "application/octet-stream",
    size,
    ...(checksum ? { checksumSha256: checksum } : {}),
  });
  if (transport.kind !== "relay") throw new Error(`expected relay, got ${transport.kind}`);
  const sending = performance.now();
  const put = await send(server, "PUT", transport.url, createReadStream(file, { highWaterMark: MiB }), size);
  if (put.status !== 204) throw new Error(`body: ${put.status} ${put.text}`);
  const sent = performance.now();
  const media = await api(server, "POST", `/api/uploads/${id}/complete`, {});
  if (media.size !== size) throw new Error(`complete: ${JSON.stringify(media)}`);
  return {
    name: checksum ? "relay + checksumSha256" : "relay",
    bytes: size,
    transfer: (sent - sending) / 1000,
    total: (performance.now() - started) / 1000,
  };
}

async function raw(server: ServerHandle, file: string, size: number) {
  const started = performance.now();
  const response = await send(server, "PUT", "/raw", createReadStream(file, { highWaterMark: MiB }), size);
  if (response.status !== 204) throw new Error(`raw: ${response.status} ${response.text}`);
  const seconds = (performance.now() - started) / 1000;
  return { name: "node:http → file (no engine)", bytes: size, transfer: seconds, total: seconds };
}

/** Sends the parts `concurrency` at a time, as multipart clients do (S3's SDKs send four). */
async function multipartRelay(server: ServerHandle, file: string, size: number, concurrency: number) {
  const started = performance.now();
  const { id, transport } = await api(server, "POST", "/api/uploads/init", {
    filename: "big.mp4",
    contentType: "application/octet-stream",
    size,
  });
  if (transport.kind !== "multipartRelay") throw new Error(`expected multipartRelay, got ${transport.kind}`);
  const partSize = transport.partSize as number;
  const count = Math.ceil(size / partSize);
  const parts: unknown[] = new Array(count);
  let next = 1;
  const sendParts = async () => {
    for (let n = next++; n <= count; n = next++) {
      const start = (n - 1) * partSize;
      const end = Math.min(size, start + partSize);
      const stream = createReadStream(file, { start, end: end - 1, highWaterMark: MiB });
      const response = await send(server, "PUT", `${transport.url}?partNumber=${n}`, stream, end - start);
      if (response.status !== 200) throw new Error(`part ${n}: ${response.status} ${response.text}`);
      parts[n - 1] = JSON.parse(response.text);
    }
  };
  const sending = performance.now();
  await Promise.all(Array.from({ length: concurrency }, sendParts));
  const sent = performance.now();
  const media = await api(server, "POST", `/api/uploads/${id}/complete`, { parts });
  if (media.size !== size) throw new Error(`complete: ${JSON.stringify(media)}`);
  return {
    name: `multipartRelay (50 MiB parts, ${concurrency} at a time)`,
    bytes: size,
    transfer: (sent - sending) / 1000,
    total: (performance.now() - started) / 1000,
  };
}

async function oneShot(server: ServerHandle, image: string, count: number) {
  const boundary = "quire-bench-boundary-93f1";
  const file = await readFile(image);
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="alt"\r\n\r\nBench\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.byteLength + file.byteLength + tail.byteLength;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const body = Readable.from(chunksOf([head, file, tail], 256 * 1024));
    const response = await send(
      server,
      "POST",
      "/api/upload",
      body,
      length,
      `multipart/form-data; boundary=${boundary}`,
    );
    if (response.status !== 201) throw new Error(`one-shot: ${response.status} ${response.text}`);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    name: `one-shot ${(file.byteLength / 1e6).toFixed(0)} MB image × ${count}`,
    bytes: file.byteLength * count,
    transfer: seconds,
    total: seconds,
  };
}

function* chunksOf(buffers: Buffer[], size: number): Generator<Buffer> {
  for (const buffer of buffers)
    for (let at = 0; at < buffer.byteLength; at += size) yield buffer.subarray(at, at + size);
}

/** A JSON API call as the owner (the dev token on a loopback request). */
async function api(server: ServerHandle, method: string, target: string, body: unknown) {
  const json = Buffer.from(JSON.stringify(body));
  const response = await send(
    server,
    method,
    target,
    Readable.from([json]),
    json.byteLength,
    "application/json",
  );
  if (response.status >= 300) throw new Error(`${method} ${target}: ${response.status} ${response.text}`);
  // biome-ignore lint/suspicious/noExplicitAny: benchmark plumbing
  return JSON.parse(response.text) as any;
}

/** One request over node:http with a streamed body of known length. */
function send(
  server: ServerHandle,
  method: string,
  target: string,
  body: Readable,
  length: number,
  contentType = "application/octet-stream",
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: server.port,
        method,
        path: target,
        headers: {
          host: "localhost",
          authorization: "Bearer bench",
          "content-type": contentType,
          "content-length": String(length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    pipeline(body, req).catch(reject);
  });
}

/** Streams a file to a new file on the same disk and fsyncs it: what the store does, minus HTTP. */
async function timeCopy(from: string, to: string): Promise<number> {
  rmSync(to, { force: true });
  const started = performance.now();
  await pipeline(createReadStream(from, { highWaterMark: MiB }), createWriteStream(to));
  const handle = await open(to, "r+");
  await handle.sync();
  await handle.close();
  return (performance.now() - started) / 1000;
}

/** Copies a small file `count` times to new files, fsyncing each: the one-shot's baseline. */
async function timeSmallCopies(from: string, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const to = path.join(dataDir, `copy-${i}.bin`);
    await pipeline(createReadStream(from, { highWaterMark: MiB }), createWriteStream(to));
    const handle = await open(to, "r+");
    await handle.sync();
    await handle.close();
  }
  const seconds = (performance.now() - started) / 1000;
  for (let i = 0; i < count; i++) rmSync(path.join(dataDir, `copy-${i}.bin`), { force: true });
  return seconds;
}

async function makeFile(file: string, mib: number): Promise<void> {
  const block = randomBytes(MiB);
  async function* blocks() {
    for (let i = 0; i < mib; i++) {
      block[0] = i & 0xff;
      yield block;
    }
  }
  await pipeline(Readable.from(blocks()), createWriteStream(file));
}

async function makeImage(file: string, mib: number): Promise<void> {
  const bytes = randomBytes(mib * 1e6);
  const header = Buffer.from([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0x0f, 0, 0, 0,
    0x0a, 0, 8, 6, 0, 0, 0,
  ]);
  header.copy(bytes);
  await pipeline(Readable.from([bytes]), createWriteStream(file));
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file, { highWaterMark: MiB }), hash);
  return hash.digest("base64");
}

function rate(bytes: number, seconds: number): string {
  return `${mibps(bytes / seconds)} MiB/s (${seconds.toFixed(2)} s)`;
}

function mibps(bytesPerSecond: number): string {
  return (bytesPerSecond / MiB).toFixed(0);
}

function pct(ratio: number): string {
  return `${(ratio * 100).toFixed(0)} %`;
}
