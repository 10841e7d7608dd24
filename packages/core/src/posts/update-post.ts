import type { Kysely, Updateable } from "kysely";
import {
  type PreparedAttachment,
  prepareAttachments,
  replaceAttachments,
} from "../attachments/save-attachments.js";
import {
  checkCollectionInput,
  sendsCollections,
  setThreadCollections,
  syncThreadMemberships,
} from "../collections/memberships.js";
import { moveAddress } from "../custom-urls/addresses.js";
import { type CompiledStatement, compiled } from "../db/compiled.js";
import type { Database, PostsTable } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { notFound } from "../errors.js";
import { deleteStoredKeys } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import type { RenderedBody } from "../render/index.js";
import { rewriteSearchRow } from "../search/search-index.js";
import { extend } from "../shared/extend.js";
import { checkSlugCandidate, deriveDisplayTitle, renderBodyInput } from "./post-content.js";
import { postOutput } from "./post-output.js";
import { findPost, type PostRow } from "./post-query.js";
import {
  checkExclusiveFields,
  checkFormatFields,
  checkPublishedAt,
  checkReplyFields,
  type FormatFieldValues,
  unsuitedFields,
} from "./post-rules.js";
import { type PostFormat, type UpdatePostInput, updatePostInput } from "./post-schemas.js";
import type { PostView } from "./post-view.js";
import { readPost } from "./read-post.js";
import { refreshThreadFigures, storeRootMediaKinds } from "./thread-figures.js";
import { lockThreadOf } from "./thread-lock.js";
import { applyThreadLanguage } from "./translation-group.js";

/**
 * Partially updates a post: omitted fields keep, null clears, rating 0 clears. Removed
 * attachments are deleted with their files once the change is committed.
 * @see spec § PUT /api/posts/:id
 */
export const updatePost = defineOperation({
  id: "posts.update",
  access: "owner",
  description: "Partially updates a post: omitted fields keep, null clears.",
  hints: { idempotent: true },
  input: updatePostInput,
  output: postOutput,
  run: async (ctx, input) => {
    checkExclusiveFields(input);
    const rendered = renderBodyInput(input);
    const { prepared, storedKeys } = input.attachments
      ? await prepareAttachments(ctx, input.attachments)
      : { prepared: undefined, storedKeys: [] };
    let written: { removedKeys: string[]; view: PostView };
    try {
      written = await ctx.db.transaction().execute(async (trx) => {
        const trxCtx = { ...ctx, db: trx };
        const removedKeys = await applyUpdate(trxCtx, input, rendered, prepared);
        // Read before the commit: after it, another writer could delete the post first.
        return {
          removedKeys,
          view: await readPost(trxCtx, input.id, { content: input.content, withPosition: false }),
        };
      });
    } catch (err) {
      await deleteStoredKeys(ctx, storedKeys);
      throw err;
    }
    await deleteStoredKeys(ctx, written.removedKeys);
    return written.view;
  },
});

async function applyUpdate(
  ctx: EngineContext,
  input: UpdatePostInput,
  rendered: RenderedBody | null | undefined,
  prepared: PreparedAttachment[] | undefined,
): Promise<string[]> {
  const { db } = ctx;
  const now = ctx.clock.now();
  // Lock the Thread before reading the post, so the fields this update keeps are the latest.
  await lockThreadOf(ctx, input.id);
  const row = await findPost(db, input.id);
  if (!row) throw notFound("post", input.id);
  const isRoot = row.id === row.thread_id;
  // A reply may send collections: they replace its Thread's set (spec § PUT /api/posts/:id rule 3).
  if (!isRoot)
    checkReplyFields(
      { ...input, collectionIds: undefined, collectionEntries: undefined },
      { kind: "update" },
    );
  if (sendsCollections(input)) await checkCollectionInput(db, input);

  const changes: Updateable<PostsTable> = { ...formatChanges(row, input), updated_at: now };
  if (rendered !== undefined) Object.assign(changes, bodyChanges(rendered));
  Object.assign(changes, statusChanges(row, input, now));
  // A draft reply that is published joins its Thread now: replies are in Thread order by
  // createdAt, and a reply published during a walk of the Thread's posts joins the end and is
  // reached (spec § GET /api/threads/:id/posts); its fold shows it last, as the newest.
  if (!isRoot && row.status === "draft" && changes.status === "published" && now > row.created_at)
    changes.created_at = now;
  if (input.summary !== undefined) changes.summary = input.summary;
  if (input.rating !== undefined) changes.rating = input.rating === 0 ? null : input.rating;
  if (isRoot && input.visibility !== undefined) changes.visibility = input.visibility;
  const pinnedAt = pinChange(row.pinned_at, input.pinned, input.pinnedAt, now);
  if (pinnedAt !== undefined) changes.pinned_at = pinnedAt;
  const featuredAt = pinChange(row.featured_at, input.featured, input.featuredAt, now);
  if (featuredAt !== undefined) changes.featured_at = featuredAt;
  changes.display_title = deriveDisplayTitle({
    title: pick(changes.title, row.title),
    bodyText: pick(changes.body_text, row.body_text),
    quoteText: pick(changes.quote_text, row.quote_text),
    url: pick(changes.url, row.url),
  });
  if (input.slug !== undefined && input.slug !== row.slug) {
    checkSlugCandidate(input.slug);
    await moveAddress(ctx, {
      from: row.slug,
      to: input.slug,
      ownerType: "post",
      ownerId: row.id,
      field: "slug",
    });
    changes.slug = input.slug;
  }

  const written = await writeChanges(db, row, changes);
  if (input.language !== undefined) {
    // One language across a Thread: the root's group decides whether it is free (409 if not).
    const root = isRoot ? row : await findPost(db, row.thread_id);
    if (root) await applyThreadLanguage(ctx, root, input.language);
  }
  if (sendsCollections(input)) {
    await setThreadCollections(ctx, { threadId: row.thread_id, collections: input, now });
  }
  let removedKeys: string[] = [];
  if (prepared) {
    const saved = await replaceAttachments(db, { postId: row.id, prepared, now });
    removedKeys = saved.removedKeys;
    if (isRoot) await storeRootMediaKinds(db, row.id, saved.kinds);
  }
  // The Thread figures come from its posts' status and publication time; the collections' copies
  // of the Thread (memberships) from its root's status, language and activity (a figure). An update
  // that moves none of them (a body, a rating, a pin, a visibility, a slug) leaves both as they are;
  // memberships it sets itself were written from the root as it now stands.
  if (written.includes("status") || written.includes("published_at") || input.language !== undefined) {
    await refreshThreadFigures(db, row.thread_id);
    await syncThreadMemberships(ctx, row.thread_id);
  }
  // The searched fields as they were and as just written: nothing to read back.
  await rewriteSearchRow(db, row.id, row, {
    status: pick(changes.status, row.status),
    title: pick(changes.title, row.title),
    source_name: pick(changes.source_name, row.source_name),
    quote_text: pick(changes.quote_text, row.quote_text),
    body_text: pick(changes.body_text, row.body_text),
    summary: pick(changes.summary, row.summary),
    url: pick(changes.url, row.url),
    source_url: pick(changes.source_url, row.source_url),
  });
  return removedKeys;
}

/**
 * Writes to the post's row the columns whose value `changes` changes (`row` was read under the
 * Thread's lock, so it is the row as stored): SQLite rewrites the entry of every index on a written
 * column even when the value written is the one already there, and an edit of the body leaves the
 * format, status and publication time that `changes` always holds as they were. One compiled
 * statement (db/compiled.ts) per set of columns, so an update pays neither building nor compiling
 * its query, and each set has one SQL text for the driver to prepare once. An update that changes
 * nothing in the row (the same values again, at the same clock time) writes nothing to it.
 * Answers the columns written.
 */
async function writeChanges(
  db: Kysely<Database>,
  row: PostRow,
  changes: Updateable<PostsTable>,
): Promise<readonly (keyof PostsTable & string)[]> {
  const stored = row as unknown as Record<string, unknown>;
  const columns = (Object.keys(changes) as (keyof PostsTable & string)[]).filter((column) => {
    const value = changes[column];
    return value !== undefined && value !== stored[column];
  });
  if (columns.length > 0) await rowUpdateOf(columns).execute(db, extend(changes, { postId: row.id }));
  return columns;
}

type RowUpdateParams = Updateable<PostsTable> & { postId: string };

/** Compiled row updates by their columns (see {@link writeChanges}); a bounded number, oldest dropped first. */
const rowUpdates = new Map<string, CompiledStatement<RowUpdateParams, unknown>>();
const maxRowUpdates = 100;

function rowUpdateOf(
  columns: readonly (keyof PostsTable & string)[],
): CompiledStatement<RowUpdateParams, unknown> {
  const shape = columns.join(",");
  const found = rowUpdates.get(shape);
  if (found) return found;
  const statement = compiled<RowUpdateParams>()((db, p) =>
    db
      .updateTable("posts")
      .set(Object.fromEntries(columns.map((column) => [column, p.value(column)])))
      .where("id", "=", p.value("postId")),
  );
  if (rowUpdates.size >= maxRowUpdates) rowUpdates.delete(rowUpdates.keys().next().value as string);
  rowUpdates.set(shape, statement);
  return statement;
}

/** The format and its fields; a format change clears fields the new format does not keep. */
function formatChanges(row: PostRow, input: UpdatePostInput): Updateable<PostsTable> {
  const format = (input.format ?? row.format) as PostFormat;
  const sent: FormatFieldValues = {
    title: input.title,
    url: input.url,
    quoteText: input.quoteText,
    sourceName: input.sourceName,
    sourceUrl: input.sourceUrl,
  };
  const stored: FormatFieldValues = {
    title: row.title,
    url: row.url,
    quoteText: row.quote_text,
    sourceName: row.source_name,
    sourceUrl: row.source_url,
  };
  if (format !== row.format) for (const field of unsuitedFields(format)) stored[field] = null;
  const merged = {
    ...stored,
    ...Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== undefined)),
  };
  checkFormatFields(format, sent, merged);
  return {
    format,
    title: merged.title ?? null,
    url: merged.url ?? null,
    quote_text: merged.quoteText ?? null,
    source_name: merged.sourceName ?? null,
    source_url: merged.sourceUrl ?? null,
  };
}

function bodyChanges(rendered: RenderedBody | null): Updateable<PostsTable> {
  return {
    body: rendered?.body ?? null,
    body_html: rendered?.html ?? null,
    body_text: rendered?.text ?? null,
    body_markdown: rendered?.markdown ?? null,
  };
}

/** Status and publication time. Drafts cannot set `publishedAt`; unpublishing clears it. */
function statusChanges(row: PostRow, input: UpdatePostInput, now: number): Updateable<PostsTable> {
  const status = input.status ?? row.status;
  checkPublishedAt(status, input.publishedAt);
  if (status === "draft") return { status, published_at: null };
  const publishedAt = input.publishedAt ?? (row.status === "published" ? row.published_at : null) ?? now;
  return { status, published_at: publishedAt };
}

/** A pin-like timestamp: an explicit time wins over the boolean; undefined keeps. */
function pinChange(
  current: number | null,
  flag: boolean | undefined,
  at: number | null | undefined,
  now: number,
): number | null | undefined {
  if (at !== undefined) return at;
  if (flag === undefined) return undefined;
  return flag ? (current ?? now) : null;
}

function pick<T>(changed: T | undefined, stored: T): T {
  return changed === undefined ? stored : changed;
}
