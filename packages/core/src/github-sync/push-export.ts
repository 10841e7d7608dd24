import type { EngineContext } from "../deps.js";
import { hugoEntries } from "../export/hugo-export.js";
import { bytesUpTo } from "../storage.js";
import { type ConnectionRow, connectionId, readConnection, repoOf, syncMarker } from "./connection.js";
import {
  createBlob,
  createCommit,
  createTree,
  GithubError,
  getBranchHead,
  getCommit,
  type TreeChange,
  updateBranch,
} from "./github-client.js";
import type { PushResult } from "./github-sync-schemas.js";
import { gitBlobSha } from "./signature.js";

/** GitHub refuses blobs above 100 MB; such a file is left out of the sync (and logged). */
const maxBlobBytes = 100 * 1024 * 1024;
/** Attempts when someone else moves the branch between our read of it and our update. */
const maxAttempts = 3;

/**
 * The outbound sync: the site's Hugo export (published posts only; docs/github-sync.md § Outbound)
 * committed on top of the branch's current tree. Only files whose bytes differ from what the last
 * sync wrote are uploaded as blobs; files an earlier sync wrote that the export no longer has
 * (a deleted post) are removed; every other file of the repository (the owner's theme, config,
 * workflows) keeps, because the new tree is built on `base_tree`. One commit, message marked
 * {@link syncMarker}; none when nothing changed. The branch moves fast-forward only: when someone
 * pushed in between, the commit is rebuilt on the new head.
 */
export async function pushExport(ctx: EngineContext, row: ConnectionRow): Promise<PushResult> {
  const repo = repoOf(row);
  const known = new Map(
    (await ctx.db.selectFrom("github_sync_files").select(["path", "blob_sha"]).execute()).map((file) => [
      file.path,
      file.blob_sha,
    ]),
  );
  const current = new Map<string, string>();
  const changes: TreeChange[] = [];
  for await (const entry of hugoEntries(ctx, false)) {
    const bytes =
      entry.text !== undefined ? new TextEncoder().encode(entry.text) : await collect(entry.bytes);
    if (bytes === null) {
      ctx.logger.warn("github sync: a file above 100 MB is left out", { path: entry.name });
      continue;
    }
    const sha = await gitBlobSha(bytes);
    current.set(entry.name, sha);
    if (known.get(entry.name) === sha) continue;
    const uploaded = await createBlob(repo, bytes);
    changes.push({ path: entry.name, sha: uploaded });
  }
  const removed = [...known.keys()].filter((path) => !current.has(path));
  for (const path of removed) changes.push({ path, sha: null });
  if (changes.length === 0) return { commit: null, changed: 0, removed: 0 };

  let commit: string | null = null;
  for (let attempt = 1; commit === null; attempt++) {
    const head = await getBranchHead(repo, row.branch);
    const base = await getCommit(repo, head);
    const tree = await createTree(repo, base.tree, changes);
    const candidate = await createCommit(repo, {
      message: `Quire: site export ${new Date(ctx.clock.now() * 1000).toISOString()} ${syncMarker}`,
      tree,
      parent: head,
    });
    try {
      await updateBranch(repo, row.branch, candidate);
      commit = candidate;
    } catch (err) {
      // 422: not a fast-forward any more (a push landed in between); build on the new head.
      if (!(err instanceof GithubError && err.status === 422) || attempt >= maxAttempts) throw err;
    }
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    for (const path of removed) await trx.deleteFrom("github_sync_files").where("path", "=", path).execute();
    for (const change of changes) {
      if (change.sha === null) continue;
      const sha = current.get(change.path) as string;
      await trx
        .insertInto("github_sync_files")
        .values({ path: change.path, blob_sha: sha })
        .onConflict((oc) => oc.column("path").doUpdateSet({ blob_sha: sha }))
        .execute();
    }
    await trx
      .updateTable("github_sync_connection")
      .set({
        last_synced_commit: commit,
        last_synced_at: now,
        last_error: null,
        last_error_at: null,
        updated_at: now,
      })
      .where("id", "=", connectionId)
      .execute();
  });
  return { commit, changed: changes.length - removed.length, removed: removed.length };
}

/** Records why an outbound sync failed, for `githubSync.status`. */
export async function recordPushError(ctx: EngineContext, err: unknown): Promise<void> {
  const message = err instanceof Error ? err.message : String(err);
  const now = ctx.clock.now();
  await ctx.db
    .updateTable("github_sync_connection")
    .set({ last_error: message.slice(0, 1000), last_error_at: now })
    .where("id", "=", connectionId)
    .execute();
}

/** Runs one outbound sync when a connection exists; null when none does. */
export async function pushIfConnected(ctx: EngineContext): Promise<PushResult | null> {
  const row = await readConnection(ctx.db);
  if (!row) return null;
  return pushExport(ctx, row);
}

async function collect(source: AsyncIterable<Uint8Array> | undefined): Promise<Uint8Array | null> {
  return source ? bytesUpTo(source, maxBlobBytes) : new Uint8Array(0);
}
