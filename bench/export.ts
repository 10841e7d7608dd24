/**
 * Export benchmark: `pnpm bench:export [--size=100k] [--format=archive|hugo|both]`.
 * On the cached SQLite site of bench:threads (built under bench/.data/ when missing), streams the
 * lossless site archive (`exportSiteArchive`) and the Hugo ZIP (`export.hugo`) to nowhere,
 * counting bytes, and samples the process's RSS every 20 ms: the figure is the growth of the peak
 * over the RSS measured after a GC just before the export began. The bench site's media rows have
 * no stored files (its store answers every read with "absent"), so the figures are rows only.
 * With `--import`, the archive is also written to a temp file and imported into a fresh SQLite
 * database, timed the same way.
 * See bench/README.md § Export.
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine, type Engine } from "../packages/core/src/engine.js";
import { exportSiteArchive } from "../packages/core/src/export/export-archive.js";
import { importSiteArchive } from "../packages/core/src/export/import-archive.js";
import { isStreamedFile } from "../packages/core/src/export/streamed-file.js";
import { chunksOf } from "../packages/core/src/storage.js";
import { label, parseSize } from "./bench-args.js";
import { readOnlyStorage } from "./read-only-storage.js";
import { benchReport } from "./report.js";
import { openSqliteSite } from "./sqlite-site.js";

const dataDir = new URL("./.data/", import.meta.url).pathname;
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const size = parseSize(args.size ?? "100k");
const format = args.format ?? "both";
const report = benchReport("bench:export");
const { log } = report;

async function measure(name: string, stream: () => AsyncIterable<Uint8Array>): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  let bytes = 0;
  for await (const chunk of stream()) bytes += chunk.byteLength;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  log(
    `${name}: ${(bytes / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(1)} s — ${Math.round(size / seconds).toLocaleString("en")} posts/s, ${(bytes / 2 ** 20 / seconds).toFixed(1)} MiB/s; RSS ${(base / 2 ** 20).toFixed(0)} MiB before, peak ${(peak / 2 ** 20).toFixed(0)} MiB (growth ${((peak - base) / 2 ** 20).toFixed(0)} MiB)`,
  );
}

const site = await openSqliteSite(`${dataDir}threads-${label(size)}.sqlite`, size, log);
site.close();
const engine: Engine = createEngine({ db: await openDatabase({ url: site.file }), storage: readOnlyStorage });
const posts = await engine.context.db
  .selectFrom("posts")
  .select((eb) => eb.fn.countAll<number>().as("n"))
  .executeTakeFirstOrThrow();
log(`${Number(posts.n).toLocaleString("en")} posts on SQLite (${site.file})`);
if (format === "archive" || format === "both") {
  await measure("site archive (JSON Lines)", () => exportSiteArchive(engine));
}
if (format === "hugo" || format === "both") {
  await measure("Hugo ZIP", () => ({
    async *[Symbol.asyncIterator]() {
      const answer = await engine.export.hugo({});
      if (!isStreamedFile(answer)) throw new Error("export.hugo answered no stream");
      yield* chunksOf(answer.body);
    },
  }));
}
if (args.import) {
  const dir = mkdtempSync(join(tmpdir(), "quire-bench-import-"));
  try {
    const file = join(dir, "site.quire");
    await pipeline(Readable.from(exportSiteArchive(engine)), createWriteStream(file));
    const target = createEngine({
      db: await openDatabase({ url: join(dir, "quire.db") }),
      storage: readOnlyStorage,
    });
    await target.migrate();
    (globalThis as { gc?: () => void }).gc?.();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const started = performance.now();
    const summary = await importSiteArchive(target, createReadStream(file));
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    log(
      `import into a fresh SQLite file: ${summary.rows.toLocaleString("en")} rows in ${seconds.toFixed(1)} s — ${Math.round(size / seconds).toLocaleString("en")} posts/s; RSS ${(base / 2 ** 20).toFixed(0)} MiB before, peak ${(peak / 2 ** 20).toFixed(0)} MiB (growth ${((peak - base) / 2 ** 20).toFixed(0)} MiB)`,
    );
    await target.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
await engine.close();
report.save();
