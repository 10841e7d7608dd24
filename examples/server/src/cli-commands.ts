import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  type Engine,
  exportSiteArchive,
  importSiteArchive,
  internalCaller,
  isEngineError,
  ownerCaller,
} from "@quire/core";
import { apiLinks } from "@quire/http-adapter";
import { serveStdio } from "@quire/mcp-adapter";
import { ConfigError, loadConfig } from "./config.js";
import type { Env } from "./env-values.js";
import { createJsonLogger } from "./logger.js";
import { progressBar } from "./progress.js";
import { openEngine } from "./server.js";
import { createStorage } from "./storage.js";

/** Where the CLI writes. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stderr is a terminal: long commands draw a progress bar there. */
  isTTY?: boolean;
  /** All of standard input as text (`quire owner password --password-stdin`). */
  readStdin?: () => Promise<string>;
  /** Asks a question on the terminal without echoing the answer; absent when stdin is not a terminal. */
  promptHidden?: (question: string) => Promise<string>;
}

/** The CLI's help text. */
export const usage = `Usage: quire <command>

Commands:
  token create [name]   create an API token (the token is printed once)
  token list            list API tokens (without their secrets)
  token revoke <id>     revoke an API token (tok_…)
  owner password [--password-stdin]
                        set the owner's sign-in password (asked twice on the terminal, or
                        read from stdin); signs out every browser session
  owner signout-all     sign out every browser session (API tokens keep working)
  tokens health [--stale-days N]
                        count API tokens: active, stale (unused N days, default 90), never used
  tokens purge --unused-days N [--dry-run]
                        delete API tokens unused for N days (--dry-run: only list them)
  uploads cleanup       expire stale upload sessions and sweep orphaned files from the store
  search reindex [--batch N]
                        rewrite the search index from the posts, N posts per transaction batch
  posts rebuild-html [--dry-run] [--batch N]
                        re-render stored body HTML where it differs (never touches updatedAt)
  migrate               apply pending database migrations
  mcp                   serve the MCP tools over stdio as the site owner (docs/mcp.md)
  export <file>         write the whole site (rows and media files) to a site archive
  import <file> [--force]
                        restore a site archive into an empty site (--force replaces the site)

The database is the server's: DATA_DIR / DATABASE_URL, see docs/configuration.md.
`;

type Command = (engine: Engine, args: string[], io: CliIo) => Promise<void>;

interface CommandEntry {
  args: (args: string[]) => boolean;
  migrateFirst: boolean;
  /** Opens the site's media storage too (the server's STORAGE_DRIVER). */
  storage?: boolean;
  run: Command;
}

const commands: Record<string, CommandEntry> = {
  "token create": { args: () => true, migrateFirst: true, run: createToken },
  "token list": { args: (args) => args.length === 0, migrateFirst: true, run: listTokens },
  "token revoke": { args: (args) => args.length === 1, migrateFirst: true, run: revokeToken },
  "owner password": {
    args: (args) => args.length === 0 || (args.length === 1 && args[0] === "--password-stdin"),
    migrateFirst: true,
    run: setOwnerPassword,
  },
  "owner signout-all": { args: (args) => args.length === 0, migrateFirst: true, run: signOutAll },
  "tokens health": {
    args: (args) => maintenanceFlags(args, tokensHealthFlags) !== null,
    migrateFirst: true,
    run: tokensHealth,
  },
  "tokens purge": {
    args: (args) => typeof maintenanceFlags(args, tokensPurgeFlags)?.["--unused-days"] === "number",
    migrateFirst: true,
    run: tokensPurge,
  },
  "uploads cleanup": {
    args: (args) => args.length === 0,
    migrateFirst: true,
    storage: true,
    run: uploadsCleanup,
  },
  "search reindex": {
    args: (args) => maintenanceFlags(args, batchFlags) !== null,
    migrateFirst: true,
    run: searchReindex,
  },
  "posts rebuild-html": {
    args: (args) => maintenanceFlags(args, rebuildFlags) !== null,
    migrateFirst: true,
    run: postsRebuildHtml,
  },
  migrate: { args: (args) => args.length === 0, migrateFirst: false, run: migrate },
  mcp: { args: (args) => args.length === 0, migrateFirst: true, storage: true, run: serveMcp },
  export: { args: (args) => args.length === 1, migrateFirst: true, storage: true, run: exportArchive },
  import: {
    args: (args) => args.length === 1 || (args.length === 2 && args.includes("--force")),
    migrateFirst: true,
    storage: true,
    run: importArchive,
  },
};

/**
 * Runs one CLI command on the configured database. Exit codes: 0 done, 1 failed (a message on
 * stderr), 2 usage error.
 */
export async function runCli(argv: string[], env: Env, io: CliIo): Promise<number> {
  if (argv.length === 0 || ["-h", "--help", "help"].includes(argv[0] ?? "")) {
    (argv.length === 0 ? io.err : io.out)(usage);
    return argv.length === 0 ? 2 : 0;
  }
  const pair = `${argv[0]} ${argv[1] ?? ""}`;
  const name = pair in commands || argv[0] === "token" || argv[0] === "owner" ? pair : (argv[0] ?? "");
  const command = commands[name];
  const args = argv.slice(name.split(" ").length);
  if (!command?.args(args)) {
    io.err(`Unknown command or wrong arguments: ${argv.join(" ")}\n\n${usage}`);
    return 2;
  }
  let engine: Engine | undefined;
  try {
    const config = loadConfig(env);
    let storage: Awaited<ReturnType<typeof createStorage>> | undefined;
    if (command.storage) {
      await mkdir(config.dataDir, { recursive: true });
      storage = await createStorage(config, env);
    }
    engine = await openEngine(
      config,
      createJsonLogger((line) => io.err(line)),
      storage,
    );
    if (command.migrateFirst) await engine.migrate();
    await command.run(engine, args, io);
    return 0;
  } catch (error) {
    io.err(`${describe(error)}\n`);
    return 1;
  } finally {
    await engine?.close();
  }
}

async function createToken(engine: Engine, args: string[], io: CliIo): Promise<void> {
  const name = args.join(" ").trim();
  const created = await engine.tokens.create(name ? { name } : {}, internalCaller);
  io.err(`Created API token ${created.id} (${created.name}). It is shown only this once: copy it now.\n`);
  io.out(`${created.token}\n`);
  io.err(`Send it as "Authorization: Bearer <token>". Revoke it with: quire token revoke ${created.id}\n`);
}

async function listTokens(engine: Engine, _args: string[], io: CliIo): Promise<void> {
  const { tokens } = await engine.tokens.list({}, internalCaller);
  if (tokens.length === 0) {
    io.out("No API tokens.\n");
    return;
  }
  const date = (seconds: number | null) =>
    seconds === null ? "never" : new Date(seconds * 1000).toISOString();
  const rows = [["ID", "NAME", "CREATED", "LAST USED"]];
  for (const token of tokens)
    rows.push([token.id, token.name, date(token.createdAt), date(token.lastUsedAt)]);
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  for (const row of rows)
    io.out(
      `${row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd()}\n`,
    );
}

async function revokeToken(engine: Engine, args: string[], io: CliIo): Promise<void> {
  const id = args[0] ?? "";
  await engine.tokens.revoke({ id }, internalCaller);
  io.out(`Revoked API token ${id}.\n`);
}

/**
 * `quire owner password`: the owner's sign-in password for `/signin`, stored as a scrypt hash.
 * With `--password-stdin` the first line of stdin is the password (for scripts); otherwise it is
 * asked twice on the terminal without echo.
 */
async function setOwnerPassword(engine: Engine, args: string[], io: CliIo): Promise<void> {
  let password: string;
  if (args.includes("--password-stdin")) {
    if (!io.readStdin) throw new Error("No standard input to read the password from");
    password = (await io.readStdin()).split(/\r?\n/)[0] ?? "";
  } else {
    if (!io.promptHidden) {
      throw new Error("Standard input is not a terminal: pipe the password in with --password-stdin");
    }
    password = await io.promptHidden("New owner password: ");
    const again = await io.promptHidden("Repeat it: ");
    if (again !== password) throw new Error("The two passwords differ; nothing was changed");
  }
  const result = await engine.owner.setPassword({ password }, internalCaller);
  io.out("Owner password set. Sign in at /signin.\n");
  if (result.revokedSessions > 0) io.err(`Signed out ${result.revokedSessions} browser session(s).\n`);
}

async function signOutAll(engine: Engine, _args: string[], io: CliIo): Promise<void> {
  const result = await engine.sessions.revokeAll({}, internalCaller);
  io.out(`Signed out ${result.revokedSessions} browser session(s).\n`);
}

/**
 * Flags of a maintenance command: `--name value` for the numeric ones, bare `--name` for the
 * switches; null when an argument is not one of them (a usage error).
 */
function maintenanceFlags(
  args: string[],
  spec: { numbers?: string[]; switches?: string[] },
): Record<string, number | true> | null {
  const flags: Record<string, number | true> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (spec.switches?.includes(arg)) {
      flags[arg] = true;
    } else if (spec.numbers?.includes(arg) && /^\d+$/.test(args[i + 1] ?? "")) {
      flags[arg] = Number(args[++i]);
    } else {
      return null;
    }
  }
  return flags;
}

const tokensHealthFlags = { numbers: ["--stale-days"] };
const tokensPurgeFlags = { numbers: ["--unused-days"], switches: ["--dry-run"] };
const batchFlags = { numbers: ["--batch"] };
const rebuildFlags = { numbers: ["--batch"], switches: ["--dry-run"] };

/** `quire tokens health [--stale-days N]`: the `tokens.health` figures (docs/internal-admin.md). */
async function tokensHealth(engine: Engine, args: string[], io: CliIo): Promise<void> {
  const flags = maintenanceFlags(args, tokensHealthFlags) ?? {};
  const staleDays = flags["--stale-days"];
  const health = await engine.tokens.health(
    typeof staleDays === "number" ? { staleDays } : {},
    internalCaller,
  );
  const date = (seconds: number | null) => (seconds === null ? "-" : new Date(seconds * 1000).toISOString());
  io.out(
    [
      `Tokens: ${health.total} (active ${health.active}, stale ${health.stale}, never used ${health.neverUsed})`,
      `Stale: not used for ${health.staleDays} days (before ${date(health.staleBefore)})`,
      `Oldest created: ${date(health.oldestCreatedAt)}`,
      `Last use: oldest ${date(health.oldestLastUsedAt)}, newest ${date(health.newestLastUsedAt)}`,
      "",
    ].join("\n"),
  );
}

/** `quire tokens purge --unused-days N [--dry-run]`: `tokens.purge` (docs/internal-admin.md). */
async function tokensPurge(engine: Engine, args: string[], io: CliIo): Promise<void> {
  const flags = maintenanceFlags(args, tokensPurgeFlags) ?? {};
  const dryRun = flags["--dry-run"] === true;
  const result = await engine.tokens.purge(
    { unusedDays: flags["--unused-days"] as number, dryRun },
    internalCaller,
  );
  for (const token of result.tokens) io.out(`${token.id}  ${token.name}\n`);
  io.out(dryRun ? `Would delete ${result.purged} API tokens.\n` : `Deleted ${result.purged} API tokens.\n`);
}

/** `quire uploads cleanup`: one `uploads.cleanup` pass, store sweep included. */
async function uploadsCleanup(engine: Engine, _args: string[], io: CliIo): Promise<void> {
  const done = await engine.uploads.cleanup({}, internalCaller);
  io.out(
    `Expired ${done.expired} upload sessions, removed ${done.removed} finished ones, swept ${done.swept} orphaned files.\n`,
  );
}

/** `quire search reindex [--batch N]`: `search.reindex` batch after batch until the last. */
async function searchReindex(engine: Engine, args: string[], io: CliIo): Promise<void> {
  const limit = maintenanceFlags(args, batchFlags)?.["--batch"];
  let cursor: string | undefined;
  let processed = 0;
  let indexed = 0;
  do {
    const batch = await engine.search.reindex(
      { cursor, ...(typeof limit === "number" ? { limit } : {}) },
      internalCaller,
    );
    processed += batch.processed;
    indexed += batch.indexed;
    cursor = batch.nextCursor ?? undefined;
  } while (cursor);
  io.out(`Reindexed ${processed} posts (${indexed} published posts in the index).\n`);
}

/** `quire posts rebuild-html [--dry-run] [--batch N]`: `posts.rebuildHtml` batch after batch. */
async function postsRebuildHtml(engine: Engine, args: string[], io: CliIo): Promise<void> {
  const flags = maintenanceFlags(args, rebuildFlags) ?? {};
  const dryRun = flags["--dry-run"] === true;
  const limit = flags["--batch"];
  let cursor: string | undefined;
  const totals = { scanned: 0, changed: 0, unchanged: 0, skipped: 0 };
  do {
    const batch = await engine.posts.rebuildHtml(
      { cursor, dryRun, ...(typeof limit === "number" ? { limit } : {}) },
      internalCaller,
    );
    totals.scanned += batch.scanned;
    totals.changed += batch.changed;
    totals.unchanged += batch.unchanged;
    totals.skipped += batch.skipped;
    for (const id of batch.changedIds) io.out(`${dryRun ? "would change" : "changed"} ${id}\n`);
    for (const id of batch.skippedIds) io.out(`skipped ${id}\n`);
    cursor = batch.nextCursor ?? undefined;
  } while (cursor);
  io.out(
    `${dryRun ? "Dry run: " : ""}${totals.scanned} posts scanned, ${totals.changed} ${dryRun ? "would change" : "changed"}, ${totals.unchanged} unchanged, ${totals.skipped} skipped.\n`,
  );
}

async function migrate(engine: Engine, _args: string[], io: CliIo): Promise<void> {
  const applied = await engine.migrate();
  if (applied.length === 0) io.out("The database is up to date: no migration to apply.\n");
  for (const name of applied) io.out(`Applied ${name}\n`);
}

/**
 * `quire mcp`: the MCP tools over stdin/stdout, on the site's own database and storage, acting as
 * the owner, until the client closes stdin. Logs go to stderr; stdout carries only MCP messages.
 */
async function serveMcp(engine: Engine, _args: string[], io: CliIo): Promise<void> {
  const { sitePathPrefix } = await engine.siteSettings();
  io.err("Quire MCP server on stdio; close stdin to stop.\n");
  await serveStdio(engine, ownerCaller, { links: apiLinks(sitePathPrefix) });
}

/**
 * `quire export <file>`: the site archive (docs/export.md), written to `<file>.partial` and renamed
 * once complete, so a failed export leaves no file that looks whole.
 */
async function exportArchive(engine: Engine, args: string[], io: CliIo): Promise<void> {
  const file = args[0] ?? "";
  const partial = `${file}.partial`;
  const bar = progressBar(io.err, io.isTTY === true, "Exporting");
  try {
    await pipeline(
      Readable.from(exportSiteArchive(engine, { onProgress: bar.update })),
      createWriteStream(partial),
    );
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    bar.done();
  }
  io.out(`Exported the site to ${file}\n`);
}

/** `quire import <file> [--force]`: restores a site archive in one transaction (docs/export.md). */
async function importArchive(engine: Engine, args: string[], io: CliIo): Promise<void> {
  const file = args.find((arg) => arg !== "--force") ?? "";
  const bar = progressBar(io.err, io.isTTY === true, "Importing");
  try {
    const summary = await importSiteArchive(engine, createReadStream(file), {
      force: args.includes("--force"),
      onProgress: bar.update,
    });
    bar.done();
    io.out(`Imported ${summary.rows} rows and ${summary.files} files from ${file}\n`);
  } finally {
    bar.done();
  }
}

function describe(error: unknown): string {
  if (error instanceof ConfigError) return `Configuration error: ${error.message}`;
  if (isEngineError(error)) return `Error (${error.code}): ${error.message}`;
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}
