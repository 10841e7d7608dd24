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
}

/** The CLI's help text. */
export const usage = `Usage: quire <command>

Commands:
  token create [name]   create an API token (the token is printed once)
  token list            list API tokens (without their secrets)
  token revoke <id>     revoke an API token (tok_…)
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
  const name = argv[0] === "token" ? `token ${argv[1] ?? ""}` : (argv[0] ?? "");
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
