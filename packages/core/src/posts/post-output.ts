import * as z from "zod";
import { attachmentOutput } from "../attachments/attachment-output.js";
import { idOf, named, nextCursor, unixTime } from "../shared/outputs.js";

const format = z.enum(["note", "link", "quote"]);

/** Fields both views share. */
const common = {
  id: idOf("pst"),
  format,
  pinnedAt: unixTime.nullable(),
  featuredAt: unixTime.nullable(),
  slug: z.string(),
  /** With `content=markdown`, `bodyMarkdown` replaces `body`, `bodyHtml` and `bodyText`. */
  bodyHtml: z.string().nullable().optional(),
  bodyText: z.string().nullable().optional(),
  bodyMarkdown: z.string().nullable().optional(),
  quoteText: z.string().nullable(),
  summary: z.string().nullable(),
  rating: z.number().int().min(1).max(5).nullable(),
  replyToId: idOf("pst").nullable(),
  threadId: idOf("pst"),
  language: z.string().nullable(),
  quietReply: z.boolean(),
  publishedAt: unixTime.nullable(),
  lastActivityAt: unixTime,
  threadUpdatedAt: unixTime,
  threadPostCount: z.number().int(),
  createdAt: unixTime,
  updatedAt: unixTime,
  attachments: z.array(attachmentOutput),
};

/** A post in the editing view (quote posts have no `title`/`url` keys). @see spec § Post */
export const postOutput = z.object({
  ...common,
  status: z.enum(["draft", "published"]),
  visibility: z.enum(["public", "latest_hidden", "private"]),
  title: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
  sourceName: z.string().nullable(),
  sourceUrl: z.string().nullable(),
  displayTitle: z.string(),
  body: z.string().nullable().optional(),
});

/** `posts.get`: the editing view plus the Thread's collections and the post's place in it. */
export const postDetailOutput = postOutput.extend({
  collectionIds: z.array(idOf("col")),
  threadPosition: z.number().int().min(1),
});

/** A public collection ref on a public post. */
export const publicCollectionRefOutput = z.object({
  id: idOf("col"),
  slug: z.string(),
  title: z.string(),
  url: z.string(),
});

/**
 * A post in the reading view: title for note and link, `url` for link, source fields for quote.
 * @see spec § Public post
 */
export const publicPostOutput = z.object({
  ...common,
  status: z.literal("published"),
  visibility: z.enum(["public", "latest_hidden"]),
  permalink: z.string(),
  title: z.string().nullable().optional(),
  url: z.string().nullable().optional(),
  sourceName: z.string().nullable().optional(),
  sourceUrl: z.string().nullable().optional(),
  previewKind: z.string().nullable(),
  previewProvider: z.string().nullable(),
  previewImageUrl: z.string().nullable(),
  collections: z.array(publicCollectionRefOutput),
});

/** A page of posts in the editing view. */
export const postPageOutput = z.object({ posts: z.array(postOutput), nextCursor });

/** `posts.slug` and `smartCollections.slug`: a suggestion, or a check of one slug. */
export const slugAnswerOutput = z.object({
  slug: z.string(),
  /** Only when checking a slug (`mode=check`). */
  available: z.boolean().optional(),
});

/** `posts.setLanguage`. */
export const setLanguageOutput = z.object({ success: z.literal(true), language: z.string() });

// Shown once in the API reference, under these names.
named(postOutput, "Post");
named(postDetailOutput, "PostDetail");
named(publicPostOutput, "PublicPost");
named(publicCollectionRefOutput, "PublicCollectionRef");
named(postPageOutput, "PostPage");
