// Packs every package in packages/ the way `pnpm publish` would, installs the tarballs into a fresh
// project outside the workspace with plain `npm install`, and runs what a new user runs against
// them: the README's in-process snippet (verbatim), examples/node-script, the Express example
// (with requests through it) and @quire/client against that server. docs/releasing.md.
//
//   node scripts/pack-check.mjs [--keep]     (--keep leaves the temporary project in place)
import { execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const keep = process.argv.includes("--keep");
const work = mkdtempSync(join(tmpdir(), "quire-pack-check-"));
const tarballs = join(work, "tarballs");
const project = join(work, "project");
mkdirSync(tarballs);
mkdirSync(project);

function run(command, args, options = {}) {
  console.log(`$ ${command} ${args.join(" ")}${options.cwd ? `   (in ${options.cwd})` : ""}`);
  return execFileSync(command, args, { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", ...options });
}

function fail(message) {
  throw new Error(`pack-check: ${message}`);
}

// 1. The packages, dependencies first (core is what the others build against).
const packages = readdirSync(join(root, "packages"))
  .map((name) => join(root, "packages", name))
  .filter((dir) => existsSync(join(dir, "package.json")))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => !manifest.private)
  .sort((a, b) => (a.manifest.name === "@quire/core" ? -1 : b.manifest.name === "@quire/core" ? 1 : 0));
const versions = new Set(packages.map(({ manifest }) => manifest.version));
if (versions.size !== 1) {
  fail(`the packages' versions differ (${packages.map((p) => `${p.manifest.name}@${p.manifest.version}`)})`);
}
const [version] = versions;

// 2. Pack each one (its prepack script builds dist): core first, since the others' declaration
// builds read its types, then the rest two at a time. Then check what each tarball holds.
for (const { manifest } of packages) {
  if (!manifest.scripts?.prepack)
    fail(`${manifest.name} has no prepack script: pnpm pack would ship no dist`);
}
const pack = ({ dir, manifest }) =>
  new Promise((resolve, reject) => {
    const destination = join(tarballs, manifest.name.replace(/[@/]/g, "_"));
    console.log(`$ pnpm pack --pack-destination ${destination}   (in ${dir})`);
    const child = spawn("pnpm", ["pack", "--pack-destination", destination], {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      const tarball = existsSync(destination)
        ? readdirSync(destination).find((name) => name.endsWith(".tgz"))
        : null;
      if (code !== 0 || !tarball)
        reject(new Error(`pack-check: pnpm pack failed for ${manifest.name} (${code})`));
      else resolve(join(destination, tarball));
    });
  });
const packed = new Map([[packages[0].manifest.name, await pack(packages[0])]]);
const queue = packages.slice(1);
await Promise.all(
  [0, 1].map(async () => {
    for (let next = queue.shift(); next; next = queue.shift())
      packed.set(next.manifest.name, await pack(next));
  }),
);
const files = [];
for (const { manifest } of packages) {
  const path = packed.get(manifest.name);
  const tarball = relative(tarballs, path);
  const contents = run("tar", ["-tzf", path]).split("\n").filter(Boolean);
  const packedManifest = JSON.parse(run("tar", ["-xzOf", path, "package/package.json"]));
  const where = `${manifest.name} (${tarball})`;
  if (!contents.some((file) => file.startsWith("package/dist/"))) fail(`${where} has no dist/`);
  if (!contents.includes("package/LICENSE")) fail(`${where} has no LICENSE`);
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [name, range] of Object.entries(packedManifest[field] ?? {})) {
      if (String(range).startsWith("workspace:")) fail(`${where}: ${field}.${name} is still ${range}`);
      if (name.startsWith("@quire/") && range !== version) {
        fail(`${where}: ${field}.${name} is ${range}, not this release's ${version}`);
      }
    }
  }
  for (const [entry, conditions] of Object.entries(packedManifest.exports ?? {})) {
    if (!conditions.types) fail(`${where}: exports["${entry}"] has no types`);
    if ("source" in conditions)
      fail(`${where}: exports["${entry}"] still has the workspace's source condition`);
    for (const target of Object.values(conditions)) {
      if (!contents.includes(`package/${target.replace(/^\.\//, "")}`)) {
        fail(`${where}: exports["${entry}"] points at ${target}, which is not in the tarball`);
      }
    }
  }
  console.log(
    `  ${where}: ${contents.length} files, exports ${Object.keys(packedManifest.exports).join(" ")}`,
  );
  files.push(path);
}
const hasClient = packages.some(({ manifest }) => manifest.name === "@quire/client");

// 3. A fresh project outside the workspace; the registry serves only third-party packages.
// Third-party packages at the ranges the workspace uses.
const manifests = [join(root, "package.json"), join(root, "examples/express/package.json")].map((file) =>
  JSON.parse(readFileSync(file, "utf8")),
);
const workspaceVersion = (name) => {
  const range = manifests.map((m) => m.dependencies?.[name] ?? m.devDependencies?.[name]).find(Boolean);
  if (!range) fail(`no workspace range for ${name}`);
  return `${name}@${range}`;
};
writeFileSync(
  join(project, "package.json"),
  `${JSON.stringify({ name: "quire-pack-check", private: true, type: "module" }, null, 2)}\n`,
);
run(
  "npm",
  [
    "install",
    "--no-audit",
    "--no-fund",
    ...files.map((file) => `./${relative(project, file)}`),
    ...["better-sqlite3", "kysely", "express", "tsx", "typescript", "@types/node", "@types/express"].map(
      workspaceVersion,
    ),
  ],
  { cwd: project, stdio: ["ignore", "inherit", "inherit"] },
);

// 3b. The published types: the Express example and every entry point type-check against the
// tarballs' .d.ts files, with skipLibCheck off so a broken declaration file fails too.
cpSync(join(root, "examples/express/src"), join(project, "express"), { recursive: true });
writeFileSync(
  join(project, "tsconfig.json"),
  JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ["node"],
    },
    include: ["express/**/*.ts", "types-check.ts"],
  }),
);
const entryImports = packages
  .flatMap(({ manifest }) =>
    Object.keys(manifest.exports).map((entry) => `${manifest.name}${entry === "." ? "" : entry.slice(1)}`),
  )
  .map((specifier, index) => `import * as entry${index} from "${specifier}";`);
writeFileSync(
  join(project, "types-check.ts"),
  `${entryImports.join("\n")}
import { createEngine, type Engine } from "@quire/core";
import { openDatabase } from "@quire/core/node";

const engine: Engine = createEngine({ db: await openDatabase({ url: ":memory:" }) });
const post = await engine.posts.create({ format: "note", bodyMarkdown: "x" });
const slug: string = post.slug;
// @ts-expect-error: typed input refuses an unknown format (this line fails if the types are \`any\`)
await engine.posts.create({ format: "nope", bodyMarkdown: "x" });
void [slug, ${entryImports.map((_, index) => `entry${index}`).join(", ")}];
`,
);
run("node", [join(project, "node_modules/typescript/bin/tsc"), "-p", "."], {
  cwd: project,
  stdio: ["ignore", "inherit", "inherit"],
});
console.log(`  types: ${entryImports.length} entry points and the Express example type-check`);

// 4a. The README's in-process snippet, verbatim, as plain JavaScript in the fresh project.
const readme = readFileSync(join(root, "README.md"), "utf8");
const snippet = /## In-process[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
if (!snippet) fail("no ```js block under the README's ## In-process heading");
writeFileSync(join(project, "readme-snippet.mjs"), snippet);
const snippetOutput = run("node", ["readme-snippet.mjs"], { cwd: project });
console.log(snippetOutput);
if (!snippetOutput.includes("<p>First <em>post</em>.</p>"))
  fail("the README snippet printed no rendered post");
if (!existsSync(join(project, "data/quire.db"))) fail("the README snippet made no ./data/quire.db");

// 4a'. The built core's SQLite WAL checkpointer (a worker thread that loads better-sqlite3 by the
// path the built code resolves): pages reach the database file with SQLite's own checkpoint off.
writeFileSync(
  join(project, "checkpoint-check.mjs"),
  `import { mkdirSync, statSync } from "node:fs";
import { createEngine } from "@quire/core";
import { openDatabase } from "@quire/core/node";
import { sql } from "kysely";
mkdirSync("checkpoint-data", { recursive: true });
const file = "checkpoint-data/quire.db";
const db = await openDatabase({ url: file, backgroundCheckpoints: { afterBytes: 1, intervalMs: 1 } });
const engine = createEngine({ db });
await engine.migrate();
await sql\`pragma wal_checkpoint(TRUNCATE)\`.execute(db);
await sql\`pragma wal_autocheckpoint = 0\`.execute(db);
const before = statSync(file).size;
for (let n = 0; n < 40; n++) {
  await engine.posts.create({ format: "note", title: \`Post \${n}\`, bodyMarkdown: "Words ".repeat(300) });
  await new Promise((resolve) => setTimeout(resolve, 5));
}
const deadline = Date.now() + 10_000;
while (statSync(file).size <= before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
const after = statSync(file).size;
await engine.close();
console.log(after > before ? "checkpointed by the worker thread" : \`no checkpoint: \${before} -> \${after} bytes\`);
`,
);
const checkpointOutput = run("node", ["checkpoint-check.mjs"], { cwd: project });
if (!checkpointOutput.includes("checkpointed by the worker thread"))
  fail(`the built core's WAL checkpointer: ${checkpointOutput}`);
console.log("  WAL checkpoints: a worker thread of the built core copied pages into the database file");

// 4a''. The built core's SQLite search index (a worker thread that loads better-sqlite3 the same
// way and writes the FTS5 index into <file>-search): every post indexed, and found through it.
writeFileSync(
  join(project, "search-index-check.mjs"),
  `import { mkdirSync } from "node:fs";
import { createEngine } from "@quire/core";
import { openDatabase, searchIndexOf } from "@quire/core/node";
mkdirSync("search-data", { recursive: true });
const db = await openDatabase({ url: "search-data/quire.db", searchIndex: { afterRows: 1, intervalMs: 0 } });
const engine = createEngine({ db });
await engine.migrate();
for (let n = 0; n < 30; n++) await engine.posts.create({ format: "note", bodyMarkdown: \`Numbat \${n}\` });
await searchIndexOf(db).caughtUp();
const { default: SQLite } = await import("better-sqlite3");
const index = new SQLite("search-data/quire.db-search", { readonly: true });
const { n } = index.prepare("select count(*) as n from post_search_fts").get();
const { value } = index.prepare("select value from search_state where name = 'indexed_through'").get();
index.close();
const found = await engine.posts.search({ q: "numbat", limit: 50 });
await engine.close();
console.log(n === 30 && value === 30 && found.count === 30 ? "indexed by the worker thread" : \`index: \${n} rows, mark \${value}, found \${found.count}\`);
`,
);
const searchIndexOutput = run("node", ["search-index-check.mjs"], { cwd: project });
if (!searchIndexOutput.includes("indexed by the worker thread"))
  fail(`the built core's search index: ${searchIndexOutput}`);
console.log("  search index: a worker thread of the built core indexed every post beside the database");

// 4b. examples/node-script, with plain node and no flags.
cpSync(join(root, "examples/node-script/script.mjs"), join(project, "script.mjs"));
cpSync(join(root, "examples/node-script/posts"), join(project, "posts"), { recursive: true });
const scriptOutput = run("node", ["script.mjs", "posts"], {
  cwd: project,
  env: { ...process.env, DATA_DIR: "script-data" },
});
if (!scriptOutput.includes("published hello")) fail(`examples/node-script printed:\n${scriptOutput}`);

// 4c. The Express example, its sources as they are (copied above), on the installed packages.
const server = spawn(process.execPath, ["--import", "tsx", "express/main.ts"], {
  cwd: project,
  env: { ...process.env, PORT: "0", DATA_DIR: "express-data", DEV_API_TOKEN: "pack-check-token" },
  stdio: ["ignore", "pipe", "inherit"],
});
try {
  const base = await new Promise((resolve, reject) => {
    let output = "";
    server.stdout.on("data", (chunk) => {
      output += chunk;
      const match = /Listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    });
    server.once("exit", (code) => reject(new Error(`the Express example exited (${code}):\n${output}`)));
    setTimeout(() => reject(new Error(`the Express example did not start:\n${output}`)), 60_000).unref();
  });
  const auth = { authorization: "Bearer pack-check-token" };
  const created = await fetch(`${base}/api/posts`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ format: "note", title: "Packed", bodyMarkdown: "From the *tarballs*" }),
  });
  if (created.status !== 201)
    fail(`POST /api/posts through Express: ${created.status} ${await created.text()}`);
  const read = await fetch(`${base}/api/public/posts/packed`);
  const readBody = await read.text();
  if (!readBody.includes("<em>tarballs</em>"))
    fail(`GET /api/public/posts/packed: ${read.status} ${readBody}`);
  const form = new FormData();
  form.set("file", new Blob(["hello, media"], { type: "text/plain" }), "hello.txt");
  const uploaded = await fetch(`${base}/api/upload`, { method: "POST", headers: auth, body: form });
  if (uploaded.status !== 201)
    fail(`POST /api/upload through Express: ${uploaded.status} ${await uploaded.text()}`);
  const file = await fetch(new URL((await uploaded.json()).url, base));
  if ((await file.text()) !== "hello, media") fail(`the uploaded file did not come back from /media`);
  console.log(`  Express example at ${base}: post created and read, upload stored and served`);

  // 4d. @quire/client against that server.
  if (hasClient) {
    const clientScript = `
import { createClient, isQuireError } from "@quire/client";
const client = createClient({ baseUrl: process.argv[2], token: "pack-check-token" });
const post = await client.posts.create({ format: "note", title: "From the client", bodyMarkdown: "Typed *calls*" });
const { posts } = await client.posts.list({ limit: 10 });
if (!posts.some((p) => p.id === post.id)) throw new Error("the client's post is not listed");
const missing = await client.posts.get({ id: "pst_01h455vb4pex5vsknk084sn02q" }).catch((error) => error);
if (!isQuireError(missing) || missing.code !== "NOT_FOUND") throw new Error("no NOT_FOUND QuireError: " + missing);
console.log("  @quire/client: created " + post.slug + ", listed " + posts.length + " posts, NOT_FOUND as a QuireError");
`;
    writeFileSync(join(project, "client-check.mjs"), clientScript);
    process.stdout.write(run("node", ["client-check.mjs", base], { cwd: project }));
  } else {
    console.log("  (no packages/client yet: the client check is skipped)");
  }
} finally {
  server.kill();
}

if (!keep) rmSync(work, { recursive: true, force: true });
console.log(`pack-check: ${packages.length} packages at ${version} install and run outside the workspace`);
