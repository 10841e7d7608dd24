/**
 * Static-site build benchmark (issue 14): `pnpm bench:static-site [--posts=10k] [--runs=3]`.
 * Reuses the Thread benchmark's generated site (bench/.data/threads-<n>.sqlite, built when
 * missing: Threads of 0–50 replies, every visibility and format, drafts, pins, attachments), copies
 * it, writes a small file into a local storage folder for every media object the site references,
 * adds 10 collections (one root in ten in one of them), 100 custom URLs (50 post aliases, 50
 * redirects) through the engine, then runs the static-site example's `buildSite` in-process
 * `--runs` times into a temporary folder and reports the time of each build, its phases and what
 * it wrote, next to a plain copy of the output folder (the filesystem's floor). Figures go to bench/.data/static-site-results.json. See bench/README.md § Static site.
 */

import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { type BuildReport, buildSite } from "../examples/static-site/src/build.js";
import { trackStorage } from "../examples/static-site/src/media.js";
import { openDatabase } from "../packages/core/src/db/open.js";
import { createEngine } from "../packages/core/src/engine.js";
import { createFsStorage } from "../packages/storage-fs/src/index.js";
import { parseSize } from "./bench-args.js";
import { openRawSqlite } from "./drivers.js";
import { benchReport } from "./report.js";
import { openSqliteSite } from "./sqlite-site.js";

const dataDir = new URL("./.data/", import.meta.url).pathname;
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [key, value] = arg.replace(/^--/, "").split("=");
    return [key, value ?? "true"];
  }),
);
const posts = parseSize(args.posts ?? "10k");
const runs = Number(args.runs ?? 3);
const report = benchReport("bench:static-site");
const { log } = report;

function folderSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

mkdirSync(dataDir, { recursive: true });
const source = join(dataDir, `threads-${posts >= 1000 ? `${posts / 1000}k` : posts}.sqlite`);
const site = await openSqliteSite(source, posts, log);
site.close();

const work = mkdtempSync(join(tmpdir(), "quire-bench-static-"));
const file = join(work, "site.sqlite");
copyFileSync(source, file);

// The media files the generated rows name, as small stand-ins, in a local storage folder.
const mediaRoot = join(work, "media");
const raw = openRawSqlite(file);
const keys = raw.prepare("select storage_key, preview_key, poster_key from media").all() as {
  storage_key: string;
  preview_key: string | null;
  poster_key: string | null;
}[];
const publishedPosts = (
  raw
    .prepare(
      `select count(*) as n from posts p join posts r on r.id = p.thread_id
       where p.status = 'published' and r.status = 'published' and r.visibility <> 'private'`,
    )
    .get() as { n: number }
).n;
// The generator writes post rows directly; give their slugs the addresses the engine would have
// claimed, so a post's slug answers (and redirects once the post lives at a custom URL).
raw.exec("insert into site_addresses (path, owner_type, owner_id) select slug, 'post', id from posts");
raw.close();
let mediaObjects = 0;
for (const row of keys) {
  for (const key of [row.storage_key, row.preview_key, row.poster_key]) {
    if (!key) continue;
    mkdirSync(dirname(join(mediaRoot, key)), { recursive: true });
    writeFileSync(join(mediaRoot, key), new Uint8Array(2048).fill(7));
    mediaObjects += 1;
  }
}

const storage = trackStorage(createFsStorage({ root: mediaRoot, publicBaseUrl: "/media" }));
const engine = createEngine({ db: await openDatabase({ url: file }), storage, settings: { pageSize: 20 } });
await engine.migrate();

// Collections and custom URLs, through the engine.
const roots: { id: string; slug: string }[] = [];
let cursor: string | undefined;
do {
  const page = await engine.threads.list({ visibility: "public", limit: 100, cursor });
  roots.push(...page.threads.map((thread) => ({ id: thread.root.id, slug: thread.root.slug })));
  cursor = page.nextCursor ?? undefined;
} while (cursor);
const collections = [];
for (let i = 0; i < 10; i++) {
  collections.push(await engine.collections.create({ slug: `shelf-${i}`, title: `Shelf ${i}` }));
}
for (const [n, root] of roots.entries()) {
  if (n % 10 === 0) {
    await engine.collections.addThread({ id: collections[(n / 10) % 10]?.id as string, threadId: root.id });
  }
}
for (let i = 0; i < 50; i++) {
  const root = roots[i * 7] as { id: string };
  await engine.customUrls.create({ path: `archive-${i}/entry`, targetType: "post", targetId: root.id });
  await engine.customUrls.create({ path: `old/${i}`, targetType: "redirect", toPath: `/${roots[i]?.slug}` });
}

const results: { ms: number; cpuMs: number; report: BuildReport; files: number; bytes: number }[] = [];
for (let run = 1; run <= runs; run++) {
  const out = join(work, "out");
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const report = await buildSite(engine, { outDir: out, media: storage, origin: "https://example.com" });
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const written = folderSize(out);
  results.push({ ms: elapsed, cpuMs, report, ...written });
  log(
    `run ${run}: ${(elapsed / 1000).toFixed(2)} s wall, ${(cpuMs / 1000).toFixed(2)} s CPU (user+system) — ${report.pages} pages (${report.posts} posts, ${report.threads} Threads, ` +
      `${report.collections} collections, ${report.redirects} redirects), ${report.mediaFiles} media files, ` +
      `${report.feeds} feeds; ${written.files} files, ${(written.bytes / 1e6).toFixed(1)} MB; phases ${JSON.stringify(report.phases)}`,
  );
}
await engine.close();

// The filesystem's floor on this machine: copying the last build's output (same files, same bytes).
const copyStarted = performance.now();
cpSync(join(work, "out"), join(work, "out-copy"), { recursive: true });
const copyMs = performance.now() - copyStarted;
log(`plain copy of the output: ${(copyMs / 1000).toFixed(2)} s`);

const medianOf = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const median = medianOf(results.map((result) => result.ms));
const medianCpu = medianOf(results.map((result) => result.cpuMs));
const summary = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
  loadavg: loadavg().map((value) => value.toFixed(2)),
  generatedPosts: posts,
  publishedReadablePosts: publishedPosts,
  mediaObjects,
  medianMs: Math.round(median),
  runs: results.map((result) => ({
    ms: Math.round(result.ms),
    files: result.files,
    bytes: result.bytes,
    ...result.report,
  })),
};
log(
  `median of ${runs}: ${(median / 1000).toFixed(2)} s wall, ${(medianCpu / 1000).toFixed(2)} s CPU for ${posts} generated posts ` +
    `(${publishedPosts} readable, ${((publishedPosts / median) * 1000).toFixed(0)} post pages/s); load ${summary.loadavg.join(" ")}`,
);
writeFileSync(join(dataDir, "static-site-results.json"), `${JSON.stringify(summary, null, 2)}\n`);
rmSync(work, { recursive: true, force: true });
report.save();
