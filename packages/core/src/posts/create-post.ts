import {
  type PreparedAttachment,
  prepareAttachments,
  replaceAttachments,
} from "../attachments/save-attachments.js";
import {
  checkCollectionInput,
  setThreadCollections,
  syncThreadMemberships,
} from "../collections/memberships.js";
import { addAlias } from "../custom-urls/aliases.js";
import type { EngineContext } from "../deps.js";
import { invalidField, notFound } from "../errors.js";
import { deleteStoredKeys } from "../files/stored-objects.js";
import { defineOperation } from "../operation.js";
import type { RenderedBody } from "../render/index.js";
import { indexPost } from "../search/search-index.js";
import { claimNewSlug, deriveDisplayTitle, renderBodyInput } from "./post-content.js";
import { defaultLanguage } from "./post-language.js";
import { findPost, type PostRow } from "./post-query.js";
import { checkExclusiveFields, checkFormatFields, checkPublishedAt, checkReplyFields } from "./post-rules.js";
import { type CreatePostInput, createPostInput } from "./post-schemas.js";
import { readPost } from "./read-post.js";
import { refreshThreadFigures, storeRootMediaKinds } from "./thread-figures.js";
import { lockThreadOf } from "./thread-lock.js";
import { linkTranslations } from "./translation-group.js";

/**
 * Creates a post: a Thread root, or a reply when `replyToId` is set. 201 with the full post.
 * @see spec § POST /api/posts, § States (post status and visibility)
 */
export const createPost = defineOperation({
  id: "posts.create",
  access: "owner",
  description: "Creates a post: a Thread root, or a reply when replyToId is set.",
  input: createPostInput,
  run: async (ctx, input) => {
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
    const { prepared, storedKeys } = await prepareAttachments(ctx, input.attachments ?? []);
    let id: string;
    try {
      id = await ctx.db
        .transaction()
        .execute((trx) => insertPost({ ...ctx, db: trx }, { ...input, language }, rendered, prepared));
    } catch (err) {
      await deleteStoredKeys(ctx, storedKeys);
      throw err;
    }
    return readPost(ctx, id, { content: undefined, withPosition: true });
  },
});

async function insertPost(
  ctx: EngineContext,
  input: CreatePostInput,
  rendered: RenderedBody | null,
  prepared: PreparedAttachment[],
): Promise<string> {
  const { db, clock, ids } = ctx;
  const now = clock.now();
  const id = ids.generate("pst");
  // A reply locks its Thread before reading its parent, which may be deleted meanwhile.
  const parent = input.replyToId ? await findParent(ctx, input.replyToId) : undefined;
  if (parent) checkReplyFields(input, { kind: "create", threadVisibility: parent.root_visibility });
  else await checkCollectionInput(db, input);

  const status = input.status ?? (parent ? parent.root_status : "published");
  checkPublishedAt(status, input.publishedAt);
  const createdAt = input.createdAt ?? now;
  const title = input.title ?? null;
  const displayTitle = deriveDisplayTitle({
    title,
    bodyText: rendered?.text ?? null,
    quoteText: input.quoteText ?? null,
    url: input.url ?? null,
  });
  const { slug, aliasPath } = await claimNewSlug(ctx, {
    id,
    slug: input.slug,
    path: input.path,
    nameForSlug: title ?? displayTitle,
    fallback: input.format,
  });
  await db
    .insertInto("posts")
    .values({
      id,
      format: input.format,
      status,
      visibility: parent ? parent.root_visibility : (input.visibility ?? "public"),
      slug,
      title,
      url: input.url ?? null,
      source_name: input.sourceName ?? null,
      source_url: input.sourceUrl ?? null,
      quote_text: input.quoteText ?? null,
      summary: input.summary ?? null,
      rating: input.rating ?? null,
      display_title: displayTitle,
      body: rendered?.body ?? null,
      body_html: rendered?.html ?? null,
      body_text: rendered?.text ?? null,
      body_markdown: rendered?.markdown ?? null,
      reply_to_id: parent?.id ?? null,
      thread_id: parent?.thread_id ?? id,
      language: parent ? parent.language : (input.language ?? null),
      quiet_reply: parent && input.quietReply ? 1 : 0,
      pinned_at: parent ? null : input.pinnedAt !== undefined ? input.pinnedAt : input.pinned ? now : null,
      featured_at: input.featuredAt !== undefined ? input.featuredAt : input.featured ? now : null,
      published_at: status === "published" ? (input.publishedAt ?? now) : null,
      created_at: createdAt,
      updated_at: input.updatedAt ?? createdAt,
      last_activity_at: createdAt,
      thread_updated_at: createdAt,
      permalink_path: aliasPath,
    })
    .execute();
  if (aliasPath)
    await addAlias(ctx, { path: aliasPath, targetType: "post", targetId: id, now, field: "path" });
  // Before the collections: the link locks another root, and roots are locked before collections.
  if (!parent && input.translationOfId) {
    const fields = { id: "translationOfId", postId: "translationOfId" };
    await linkTranslations(ctx, { id, postId: input.translationOfId, fields });
  }
  if (!parent) await setThreadCollections(ctx, { threadId: id, collections: input, now });

  const { kinds } = await replaceAttachments(db, { postId: id, prepared, now });
  if (!parent && kinds.length > 0) await storeRootMediaKinds(db, id, kinds);
  await refreshThreadFigures(db, parent?.thread_id ?? id);
  await syncThreadMemberships(ctx, parent?.thread_id ?? id);
  await indexPost(db, id);
  return id;
}

/** The text language detection reads: title, body, quote and summary. */
function languageSample(input: CreatePostInput, rendered: RenderedBody | null): string {
  return [input.title, rendered?.text, input.quoteText, input.summary].filter(Boolean).join("\n");
}

async function findParent(ctx: EngineContext, id: string): Promise<PostRow> {
  await lockThreadOf(ctx, id);
  const parent = await findPost(ctx.db, id);
  if (!parent) throw notFound("post", id);
  return parent;
}
