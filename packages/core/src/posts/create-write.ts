import type { Insertable, Kysely, QueryCreator, Selectable } from "kysely";
import { type PreparedAttachment, replaceAttachments } from "../attachments/save-attachments.js";
import {
  checkCollectionInput,
  namesCollections,
  setThreadCollections,
  syncThreadMemberships,
} from "../collections/memberships.js";
import { addAlias } from "../custom-urls/aliases.js";
import { compiled, type Params } from "../db/compiled.js";
import type { Database, PostsTable } from "../db/schema.js";
import type { EngineContext } from "../deps.js";
import { invalidField, notFound } from "../errors.js";
import type { RenderedBody } from "../render/index.js";
import { insertSearchRow } from "../search/search-index.js";
import { searchTextOf } from "../search/search-text.js";
import { extend } from "../shared/extend.js";
import { claimNewSlug, deriveDisplayTitle, firstSlugCandidate, renderBodyInput } from "./post-content.js";
import { defaultLanguage } from "./post-language.js";
import { findPost, type PostRow } from "./post-query.js";
import { checkExclusiveFields, checkFormatFields, checkPublishedAt, checkReplyFields } from "./post-rules.js";
import type { CreatePostInput } from "./post-schemas.js";
import type { PostView } from "./post-view.js";
import { toPostView } from "./post-view.js";
import { refreshThreadFigures, storeRootMediaKinds } from "./thread-figures.js";
import { lockThreadOf } from "./thread-lock.js";
import { linkTranslations } from "./translation-group.js";

/**
 * A create request checked and rendered, ready to be written: every rule that needs no database
 * has passed, the body is rendered once, and a root's language is settled.
 */
export interface CreatePlan {
  input: CreatePostInput;
  rendered: RenderedBody | null;
}

/** A new post's rows, built in memory: the post and, when published, its search row. */
export interface NewPostRows {
  post: Insertable<PostsTable> & PlainRootColumns;
  search: { post_id: string; search_text: string } | null;
}

/** The columns a plain root's row sets that the table would otherwise default. */
interface PlainRootColumns {
  thread_post_count: number;
  thread_reply_count: number;
  quiet_reply: number;
}

/**
 * The checks of `posts.create` that need no database, then the one render of the body and the
 * root's language (detected on a multilingual site when not sent). Shared by `posts.create` and
 * `posts.createMany`, so both refuse and store alike.
 * @see spec § POST /api/posts
 */
export async function planCreate(ctx: EngineContext, input: CreatePostInput): Promise<CreatePlan> {
  checkExclusiveFields(input);
  checkFormatFields(input.format, input, input);
  if (input.rating === 0) throw invalidField("rating", "Expected 1 to 5 (0 clears a rating on update)");
  const rendered = renderBodyInput(input) ?? null;
  if (input.replyToId && input.translationOfId) {
    throw invalidField("translationOfId", "Translations link Thread roots; a reply cannot be one");
  }
  // A root without a language gets the detected one on a multilingual site; a reply always takes
  // its Thread's (one language across a Thread), whatever it sends.
  const language = input.replyToId
    ? input.language
    : (input.language ?? (await defaultLanguage(ctx.settings, languageSample(input, rendered))));
  return { input: extend(input, { language }), rendered };
}

/** The text language detection reads: title, body, quote and summary. */
function languageSample(input: CreatePostInput, rendered: RenderedBody | null): string {
  return [input.title, rendered?.text, input.quoteText, input.summary].filter(Boolean).join("\n");
}

/**
 * True for a Thread root that needs nothing but its address, its row and its search row: no
 * parent, translation, collections, attachments or custom path. Such a create is written from
 * rows built in memory (its Thread figures are its own), and many are written with multi-row
 * inserts by `posts.createMany`.
 */
export function isPlainRoot(plan: CreatePlan, prepared: readonly PreparedAttachment[]): boolean {
  const { input } = plan;
  return (
    !input.replyToId &&
    !input.translationOfId &&
    input.path === undefined &&
    !namesCollections(input) &&
    prepared.length === 0
  );
}

/**
 * Claims a plain root's address (inside the write's transaction) and builds its rows, Thread
 * figures included: a root alone is its Thread, so they are what refreshThreadFigures would store.
 */
export async function claimPlainRoot(
  ctx: EngineContext,
  plan: CreatePlan,
  id: string,
  now: number,
): Promise<NewPostRows> {
  const { input } = plan;
  checkPublishedAt(input.status ?? "published", input.publishedAt);
  const base = baseValues(plan, now);
  const { slug } = await claimNewSlug(ctx, {
    id,
    slug: input.slug,
    path: input.path,
    nameForSlug: base.title ?? base.display_title,
    fallback: input.format,
  });
  return plainRootRows(plan, base, id, slug, now);
}

/**
 * PostgreSQL: a plain root's address, row and search row written by one statement, with no
 * transaction of its own (a statement is atomic by itself), when its first address candidate
 * needs no read (db/dialect.ts `roundTrips`; docs/posts.md § Write path). That is one round trip
 * to the server where the step-by-step write takes five (`begin`, the address, the row, the search
 * row, `commit`). Undefined, with nothing written, on SQLite (its statements are calls in this
 * process, and it has no data-modifying `WITH`) or when the address is taken. The caller then
 * writes the root step by step, which settles the address as {@link claimPlainRoot} does.
 */
export async function writePlainRootAtOnce(
  ctx: EngineContext,
  plan: CreatePlan,
  id: string,
  now: number,
): Promise<NewPostRows | undefined> {
  if (!ctx.dialect.roundTrips) return undefined;
  const { input } = plan;
  checkPublishedAt(input.status ?? "published", input.publishedAt);
  const base = baseValues(plan, now);
  const slug = firstSlugCandidate({
    slug: input.slug,
    nameForSlug: base.title ?? base.display_title,
    fallback: input.format,
  });
  if (slug === undefined) return undefined;
  const rows = plainRootRows(plan, base, id, slug, now);
  const written = rows.search
    ? await insertRootAtOnce.execute(ctx.db, extend(rows.post, { search_text: rows.search.search_text }))
    : await insertUnlistedRootAtOnce.execute(ctx.db, rows.post as NewPostRow & Record<string, unknown>);
  // No row: the address is taken, and the statement wrote nothing.
  return written.length === 1 ? rows : undefined;
}

/** A plain root's rows from its request, rendered body and claimed slug; its Thread figures are its own. */
function plainRootRows(
  plan: CreatePlan,
  base: ReturnType<typeof baseValues>,
  id: string,
  slug: string,
  now: number,
): NewPostRows {
  const { input } = plan;
  const status = input.status ?? "published";
  const publishedAt = status === "published" ? (input.publishedAt ?? now) : null;
  const activity = publishedAt ?? base.created_at;
  const post = {
    id,
    ...base,
    status,
    visibility: input.visibility ?? "public",
    slug,
    reply_to_id: null,
    thread_id: id,
    language: input.language ?? null,
    quiet_reply: 0,
    pinned_at: input.pinnedAt !== undefined ? input.pinnedAt : input.pinned ? now : null,
    published_at: publishedAt,
    thread_post_count: publishedAt === null ? 0 : 1,
    thread_reply_count: 0,
    last_activity_at: activity,
    thread_updated_at: activity,
    permalink_path: null,
  };
  return { post, search: searchRow(post) };
}

/** The search row of a new post: its folded text when published, none for a draft. */
function searchRow(post: Insertable<PostsTable>): NewPostRows["search"] {
  if (post.status !== "published") return null;
  return {
    post_id: post.id,
    search_text: searchTextOf({
      title: post.title ?? null,
      source_name: post.source_name ?? null,
      quote_text: post.quote_text ?? null,
      body_text: post.body_text ?? null,
      summary: post.summary ?? null,
      url: post.url ?? null,
      source_url: post.source_url ?? null,
    }),
  };
}

/** The columns every new post takes from its request and rendered body alone. */
function baseValues(plan: CreatePlan, now: number) {
  const { input, rendered } = plan;
  const createdAt = input.createdAt ?? now;
  const title = input.title ?? null;
  return {
    format: input.format,
    title,
    url: input.url ?? null,
    source_name: input.sourceName ?? null,
    source_url: input.sourceUrl ?? null,
    quote_text: input.quoteText ?? null,
    summary: input.summary ?? null,
    rating: input.rating ?? null,
    display_title: deriveDisplayTitle({
      title,
      bodyText: rendered?.text ?? null,
      quoteText: input.quoteText ?? null,
      url: input.url ?? null,
    }),
    body: rendered?.body ?? null,
    body_html: rendered?.html ?? null,
    body_text: rendered?.text ?? null,
    body_markdown: rendered?.markdown ?? null,
    featured_at: input.featuredAt !== undefined ? input.featuredAt : input.featured ? now : null,
    created_at: createdAt,
    updated_at: input.updatedAt ?? createdAt,
  };
}

/**
 * Writes the rows of plain roots. One root: two compiled statements (built and compiled once,
 * prepared once per connection). Many: one multi-row insert per table per chunk, in chunks that
 * keep below SQLite's parameter limit.
 */
export async function writeNewRows(
  ctx: Pick<EngineContext, "db">,
  rows: readonly NewPostRows[],
): Promise<void> {
  const [only] = rows;
  if (only && rows.length === 1) {
    await insertPostRow.execute(ctx.db, only.post as NewPostRow & Record<string, unknown>);
    if (only.search) await insertSearchRow.execute(ctx.db, only.search);
    return;
  }
  for (const chunk of chunksOf(
    rows.map((row) => row.post),
    rowsPerInsert,
  )) {
    await ctx.db.insertInto("posts").values(chunk).execute();
  }
  const search = rows.flatMap((row) => (row.search ? [row.search] : []));
  for (const chunk of chunksOf(search, rowsPerInsert)) {
    await ctx.db.insertInto("post_search").values(chunk).execute();
  }
}

/** The columns a new post's row sets (every post, root or reply), in the order its inserts name them. */
const newPostColumns = [
  "id",
  "format",
  "title",
  "url",
  "source_name",
  "source_url",
  "quote_text",
  "summary",
  "rating",
  "display_title",
  "body",
  "body_html",
  "body_text",
  "body_markdown",
  "featured_at",
  "created_at",
  "updated_at",
  "status",
  "visibility",
  "slug",
  "reply_to_id",
  "thread_id",
  "language",
  "quiet_reply",
  "pinned_at",
  "published_at",
  "thread_post_count",
  "thread_reply_count",
  "last_activity_at",
  "thread_updated_at",
  "permalink_path",
] as const satisfies readonly (keyof NewPostRows["post"])[];

type NewPostRow = NewPostRows["post"];

/** A new post's row, every column named (see {@link newPostColumns}); compiled once. */
const insertPostRow = compiled<NewPostRow & Record<string, unknown>>()((db, p) =>
  db.insertInto("posts").values(newPostValues(p)),
);

/** The columns of a new post's row as placeholders, for its inserts. */
function newPostValues(p: Params<NewPostRow & Record<string, unknown>>): NewPostRow {
  return Object.fromEntries(newPostColumns.map((column) => [column, p.value(column)])) as NewPostRow;
}

/**
 * PostgreSQL: a plain root in one statement. Its address is claimed by a data-modifying CTE that
 * does nothing when the address is taken (an error would abort nothing here, but the server would
 * log it as an ERROR); the row is inserted only when the address was claimed (`INSERT … SELECT`
 * of its values `WHERE EXISTS` the claim: PostgreSQL gives each value its column's type), and,
 * for a published root, its search row from the row inserted. The statement answers one row when
 * the root was written, none when the address was taken. All parts see one snapshot and are
 * checked (unique keys, the search row's foreign key) by the end of the statement.
 */
const insertRootAtOnce = compiled<NewPostRow & { search_text: string } & Record<string, unknown>>()((db, p) =>
  db
    .with("address", (cte) => claimAddressOf(cte, p))
    .with("post", (cte) =>
      cte.insertInto("posts").columns(newPostColumns).expression(rowIfClaimed(db, p)).returning("id"),
    )
    .insertInto("post_search")
    .columns(["post_id", "search_text"])
    .expression((eb) =>
      eb.selectFrom("post").select(["post.id", eb.val(p.value("search_text")).as("search_text")]),
    )
    .returning("post_id"),
);

/** As {@link insertRootAtOnce}, for a draft: no search row. */
const insertUnlistedRootAtOnce = compiled<NewPostRow & Record<string, unknown>>()((db, p) =>
  db
    .with("address", (cte) => claimAddressOf(cte, p))
    .insertInto("posts")
    .columns(newPostColumns)
    .expression(rowIfClaimed(db, p))
    .returning("id"),
);

/** The claim of a new post's slug as its address, doing nothing when the address is taken. */
function claimAddressOf(db: QueryCreator<Database>, p: Params<NewPostRow & Record<string, unknown>>) {
  return db
    .insertInto("site_addresses")
    .values({ path: p.value("slug"), owner_type: "post", owner_id: p.value("id") })
    .onConflict((oc) => oc.column("path").doNothing())
    .returning("path");
}

/**
 * The row's values as a one-row `SELECT`, with a row only when the CTE `address` claimed the slug.
 * Built on the plain instance `db` (a query built on the one `with` returns would repeat its CTEs).
 */
function rowIfClaimed(db: Kysely<Database>, p: Params<NewPostRow & Record<string, unknown>>) {
  // biome-ignore lint/suspicious/noExplicitAny: the CTE `address` is not part of the typed schema
  const withAddress = db as unknown as Kysely<any>;
  return withAddress
    .selectNoFrom((eb) => newPostColumns.map((column) => eb.val(p.value(column)).as(column)))
    .where((eb) => eb.exists(eb.selectFrom("address").select("path")));
}

/** 200 rows of about 35 columns: 7,000 parameters, under SQLite's 32,766 and PostgreSQL's 65,535. */
const rowsPerInsert = 200;

function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/**
 * The editing view of a plain root just written, from its row in memory: what `readPost` would
 * read back (a root alone in its Thread, no attachments or collections, position 1).
 */
export function plainRootView(
  ctx: EngineContext,
  rows: NewPostRows,
  content?: "markdown" | undefined,
): PostView {
  const post = rows.post as Selectable<PostsTable> & PlainRootColumns;
  // Every column named, not `{ ...post, ...more }`: V8 copies a 31-key object and then adds eleven
  // keys one by one at about 25 µs a call, more than the rest of the view (measured on Node 20).
  const row: PostRow = {
    id: post.id,
    format: post.format,
    status: post.status,
    visibility: post.visibility,
    slug: post.slug,
    title: post.title,
    url: post.url,
    source_name: post.source_name,
    source_url: post.source_url,
    quote_text: post.quote_text,
    summary: post.summary,
    rating: post.rating,
    display_title: post.display_title,
    body: post.body,
    body_html: post.body_html,
    body_text: post.body_text,
    body_markdown: post.body_markdown,
    reply_to_id: post.reply_to_id,
    thread_id: post.thread_id,
    language: post.language,
    quiet_reply: post.quiet_reply,
    pinned_at: post.pinned_at,
    featured_at: post.featured_at,
    published_at: post.published_at,
    created_at: post.created_at,
    updated_at: post.updated_at,
    thread_post_count: post.thread_post_count,
    thread_reply_count: post.thread_reply_count,
    last_activity_at: post.last_activity_at,
    thread_updated_at: post.thread_updated_at,
    permalink_path: post.permalink_path,
    media_kinds: 0,
    preview_kind: null,
    preview_provider: null,
    preview_image_url: null,
    translation_group_id: null,
    root_visibility: post.visibility,
    root_status: post.status,
    root_post_count: post.thread_post_count,
    root_last_activity_at: post.last_activity_at,
    root_thread_updated_at: post.thread_updated_at,
  };
  return toPostView(ctx, row, [], { content });
}

/**
 * Writes any new post (a reply, or a root with a translation, collections, attachments or a custom
 * path) inside the caller's transaction, step by step.
 */
export async function insertPost(
  ctx: EngineContext,
  plan: CreatePlan,
  prepared: PreparedAttachment[],
  id: string,
): Promise<void> {
  const { input } = plan;
  const { db, clock } = ctx;
  const now = clock.now();
  // A reply locks its Thread before reading its parent, which may be deleted meanwhile.
  const parent = input.replyToId ? await findParent(ctx, input.replyToId) : undefined;
  if (parent) checkReplyFields(input, { kind: "create", threadVisibility: parent.root_visibility });
  else await checkCollectionInput(db, input);

  const status = input.status ?? (parent ? parent.root_status : "published");
  checkPublishedAt(status, input.publishedAt);
  const base = baseValues(plan, now);
  const { slug, aliasPath } = await claimNewSlug(ctx, {
    id,
    slug: input.slug,
    path: input.path,
    nameForSlug: base.title ?? base.display_title,
    fallback: input.format,
  });
  // Every column of a new post's row, so one compiled insert writes it; the Thread figures are
  // counted below.
  const post: NewPostRow = {
    id,
    ...base,
    status,
    visibility: parent ? parent.root_visibility : (input.visibility ?? "public"),
    slug,
    reply_to_id: parent?.id ?? null,
    thread_id: parent?.thread_id ?? id,
    language: parent ? parent.language : (input.language ?? null),
    quiet_reply: parent && input.quietReply ? 1 : 0,
    pinned_at: parent ? null : input.pinnedAt !== undefined ? input.pinnedAt : input.pinned ? now : null,
    published_at: status === "published" ? (input.publishedAt ?? now) : null,
    thread_post_count: 0,
    thread_reply_count: 0,
    last_activity_at: base.created_at,
    thread_updated_at: base.created_at,
    permalink_path: aliasPath,
  };
  await insertPostRow.execute(db, post as NewPostRow & Record<string, unknown>);
  if (aliasPath)
    await addAlias(ctx, { path: aliasPath, targetType: "post", targetId: id, now, field: "path" });
  // Before the collections: the link locks another root, and roots are locked before collections.
  if (!parent && input.translationOfId) {
    const fields = { id: "translationOfId", postId: "translationOfId" };
    await linkTranslations(ctx, { id, postId: input.translationOfId, fields });
  }
  if (!parent) await setThreadCollections(ctx, { threadId: id, collections: input, now });

  // A new post holds no attachments yet: only a list that names some has anything to write.
  if (prepared.length > 0) {
    const { kinds } = await replaceAttachments(db, { postId: id, prepared, now });
    if (!parent && kinds.length > 0) await storeRootMediaKinds(db, id, kinds);
  }
  await refreshThreadFigures(db, parent?.thread_id ?? id);
  await syncThreadMemberships(ctx, parent?.thread_id ?? id);
  // A new post has no search row yet: a published one gets its own, as indexPost would write it.
  const search = searchRow(post);
  if (search) await db.insertInto("post_search").values(search).execute();
}

async function findParent(ctx: EngineContext, id: string): Promise<PostRow> {
  await lockThreadOf(ctx, id);
  const parent = await findPost(ctx.db, id);
  if (!parent) throw notFound("post", id);
  return parent;
}
