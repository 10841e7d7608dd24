import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Engine } from "@quire/core";
import { createTestEngine, tableNames } from "@quire/core/testing";
import { createFsStorage } from "@quire/storage-fs";
import type { Kysely } from "kysely";
import { createFileHandler, createHandler, type FetchHandler } from "../../src/index.js";

/** The owner's token (the dev token, accepted from 127.0.0.1) and the internal admin token. */
export const ownerToken = "dev-token";
export const adminToken = "fuzz-internal-admin-token";

/** What the fuzzer can name: real IDs, slugs, sessions and cursors of the site, read before each batch. */
export interface Pools {
  postIds: string[];
  slugs: string[];
  mediaIds: string[];
  uploads: { id: string; size: number; transport: string; partSize: number | null }[];
  tokenIds: string[];
  /** Secrets of API tokens (owner credentials other than the dev token). */
  apiTokens: string[];
  cursors: string[];
  etags: string[];
}

/** The stored state: every row of every table, and every file of the store with its size and time (not folders). */
export interface Snapshot {
  rows: Record<string, string[]>;
  files: string[];
}

/**
 * A site to fuzz: an engine on a fresh database (SQLite or PostgreSQL, as the test run says) with a
 * temp-folder store, the API handler (with the internal admin token, and request bodies that can
 * also arrive the way a Node server hands them over, even on GET) and the file handler at /media.
 */
export interface FuzzSite {
  engine: Engine;
  /** Sends a request to /media/* (file handler) or anything else (API handler). */
  handle(request: Request, rawBody?: Uint8Array): Promise<Response>;
  /** Adds posts, media and upload sessions when requests have used them up. */
  replenish(): Promise<void>;
  pools(cursors: string[]): Promise<Pools>;
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

/** Opens and seeds a fuzz site. */
export async function openFuzzSite(): Promise<FuzzSite> {
  // On tmpfs where there is one: the store's fsyncs would otherwise be most of a run's time.
  const scratch = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  const root = await mkdtemp(path.join(scratch, "quire-fuzz-"));
  const storage = createFsStorage({ root, publicBaseUrl: "/media" });
  const { engine, cleanup } = await createTestEngine({
    storage,
    // Small limits, so multipart sessions and size refusals come cheap.
    config: { uploadMaxBytes: 64 * 1024, uploadMultipartThreshold: 8 * 1024, uploadPartSize: 4 * 1024 },
  });
  const tables = await tableNames(engine);
  const rawBodies = new WeakMap<Request, Uint8Array>();
  const api = createHandler(engine, {
    devApiToken: ownerToken,
    internalAdminToken: adminToken,
    clientAddress: () => "127.0.0.1",
    requestBody: (request) => {
      const bytes = rawBodies.get(request);
      return bytes
        ? (async function* () {
            yield bytes;
          })()
        : undefined;
    },
  });
  const files: FetchHandler = createFileHandler(storage, { prefix: "/media" });
  let round = 0;
  const apiTokens: { id: string; token: string }[] = [];

  const site: FuzzSite = {
    engine,
    handle: (request, rawBody) => {
      if (rawBody) rawBodies.set(request, rawBody);
      return new URL(request.url).pathname.startsWith("/media/") ? files(request) : api(request);
    },
    replenish: async () => {
      round++;
      const { db } = engine.context;
      const posts = await db.selectFrom("posts").select("id").execute();
      if (posts.length < 12) await seedPosts(engine, round);
      const open = await db.selectFrom("upload_sessions").select("id").where("state", "=", "open").execute();
      if (open.length < 4) await seedUploads(engine, round);
    },
    pools: (cursors) => readPools(engine, cursors, apiTokens),
    snapshot: async () => ({ rows: await tableRows(engine, tables), files: await storedFiles(root) }),
    close: async () => {
      await cleanup();
      await rm(root, { recursive: true, force: true });
    },
  };
  await site.replenish();
  return site;
}

/** Roots of every kind, replies (enough for a fold with hidden replies), drafts, attachments. */
async function seedPosts(engine: Engine, round: number): Promise<void> {
  const image = await engine.media.upload({ file: pngBytes(4, 3), filename: `seed-${round}.png` });
  await engine.media.upload({ file: pngBytes(2, 2), filename: `free-${round}.png` });
  const root = await engine.posts.create({
    format: "note",
    title: `Seed ${round}`,
    bodyMarkdown: "Hello *world*",
    attachments: [
      { type: "media", mediaId: image.id, alt: "a dot" },
      { type: "text", content: "# Notes\n\nsome text" },
    ],
  });
  for (let n = 0; n < 7; n++) {
    await engine.posts.create({
      format: "note",
      bodyMarkdown: `reply ${n}`,
      replyToId: root.id,
      quietReply: n === 3,
      ...(n === 5 ? { status: "draft" as const } : {}),
    });
  }
  await engine.posts.create({ format: "note", title: "Draft", status: "draft" });
  await engine.posts.create({ format: "note", title: "Private", visibility: "private", pinned: true });
  await engine.posts.create({
    format: "link",
    title: "Link",
    url: "https://example.com/",
    visibility: "latest_hidden",
    featured: true,
  });
  await engine.posts.create({
    format: "quote",
    quoteText: "Quoted",
    sourceName: "Someone",
    path: `q/${round}`,
  });
}

/** Open sessions of each transport, one relay session with its body already sent. */
async function seedUploads(engine: Engine, round: number): Promise<void> {
  const small = pngBytes(3, 3, 2048);
  const relay = await engine.uploads.init({
    filename: `r${round}.png`,
    contentType: "image/png",
    size: small.length,
  });
  await engine.uploads.putBody({ id: relay.id, body: small, contentLength: small.length });
  await engine.uploads.init({ filename: `v${round}.mp4`, contentType: "video/mp4", size: 4096 });
  await engine.uploads.init({
    filename: `big${round}.bin`,
    contentType: "application/octet-stream",
    size: 20_000,
  });
  await engine.uploads.init({ filename: `n${round}.txt`, contentType: "text/plain", size: 10 });
}

async function readPools(
  engine: Engine,
  cursors: string[],
  apiTokens: { id: string; token: string }[],
): Promise<Pools> {
  const { db } = engine.context;
  const posts = await db.selectFrom("posts").select(["id", "slug"]).execute();
  const media = await db.selectFrom("media").select("id").execute();
  const uploads = await db
    .selectFrom("upload_sessions")
    .select(["id", "size", "transport", "part_size"])
    .orderBy("created_at", "desc")
    .limit(12)
    .execute();
  let tokens = await db.selectFrom("api_tokens").select("id").execute();
  // A token the fuzzer revoked is replaced, so owner requests keep reaching past authentication.
  const live = apiTokens.filter((token) => tokens.some((row) => row.id === token.id));
  if (live.length === 0) {
    const created = await engine.tokens.create({ name: "fuzz" });
    live.push({ id: created.id, token: created.token });
    tokens = await db.selectFrom("api_tokens").select("id").execute();
  }
  apiTokens.splice(0, apiTokens.length, ...live);
  const parts = await db.selectFrom("upload_parts").select("etag").limit(8).execute();
  return {
    postIds: posts.map((row) => row.id),
    slugs: posts.map((row) => row.slug),
    mediaIds: media.map((row) => row.id),
    uploads: uploads.map((row) => ({
      id: row.id,
      size: Number(row.size),
      transport: row.transport,
      partSize: row.part_size === null ? null : Number(row.part_size),
    })),
    tokenIds: tokens.map((row) => row.id),
    apiTokens: apiTokens.map((token) => token.token),
    cursors,
    etags: parts.map((row) => row.etag),
  };
}

async function tableRows(engine: Engine, tables: string[]): Promise<Record<string, string[]>> {
  const rows: Record<string, string[]> = {};
  const db = engine.context.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  for (const table of tables) {
    const all = await db.selectFrom(table).selectAll().execute();
    rows[table] = all.map((row) => JSON.stringify(normalised(table, row))).sort();
  }
  return rows;
}

/** A row as compared: numbers as numbers whatever the driver returns; a token's last use is not data. */
function normalised(table: string, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (table === "api_tokens" && key === "last_used_at") continue;
    out[key] = typeof value === "bigint" ? Number(value) : value;
  }
  return out;
}

async function storedFiles(root: string): Promise<string[]> {
  const names = await readdir(root, { recursive: true }).catch(() => []);
  const out: string[] = [];
  for (const name of names) {
    const info = await stat(path.join(root, name)).catch(() => null);
    // Folders are not stored data (a store has keys only); the files in them are.
    if (info?.isDirectory()) continue;
    out.push(`${name.split(path.sep).join("/")} ${info?.size ?? "?"} ${info?.mtimeMs ?? "?"}`);
  }
  return out.sort();
}

const be32 = (n: number) => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];

/** A file with a real PNG signature and IHDR of these dimensions, padded to `size` bytes. */
export function pngBytes(width: number, height: number, size = 512): Uint8Array {
  const head = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...be32(13), 0x49, 0x48, 0x44, 0x52];
  const bytes = new Uint8Array(Math.max(size, 40));
  bytes.set([...head, ...be32(width), ...be32(height), 8, 6, 0, 0, 0]);
  return bytes;
}
