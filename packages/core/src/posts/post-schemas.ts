import * as z from "zod";
import { contentParam, cursorParam, limitParam } from "../shared/list-params.js";
import { unixSeconds } from "../shared/time.js";
import { typeId } from "../shared/type-id.js";
import { languageTag } from "./post-language.js";

/** Post formats. A client reads an unknown format as `note`. */
export const postFormat = z.enum(["note", "link", "quote"]);
/** Stored post status. */
export const postStatus = z.enum(["draft", "published"]);
/** Stored (root) visibility. */
export const postVisibility = z.enum(["public", "latest_hidden", "private"]);

/** A post format. */
export type PostFormat = z.infer<typeof postFormat>;

const allowedUrlProtocols = new Set(["http:", "https:", "mailto:"]);

/** An absolute `http:`, `https:` or `mailto:` URL. */
export const absoluteUrl = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      return allowedUrlProtocols.has(new URL(value).protocol);
    } catch {
      return false;
    }
  }, "Expected an absolute http:, https: or mailto: URL");

/** A BCP 47 language tag, read in canonical form (posts/post-language.ts). */
export { languageTag };

/** An attachment on a post: an uploaded media item by ID, or new Markdown text. */
export const attachmentInput = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("media"),
    mediaId: typeId("med"),
    alt: z.string().trim().max(500).nullable().optional(),
  }),
  z.object({
    type: z.literal("text"),
    contentFormat: z.literal("markdown").default("markdown"),
    content: z.string().min(1),
    summary: z.string().max(300).nullable().optional(),
  }),
]);

/** One attachment input. */
export type AttachmentInput = z.output<typeof attachmentInput>;

const collectionEntry = z.object({
  collectionId: typeId("col"),
  createdAt: unixSeconds.optional(),
  position: z.union([z.string(), z.number()]).optional(),
  pinnedAt: unixSeconds.nullable().optional(),
});

/** Longest accepted `body` or `bodyMarkdown`, in characters (docs/posts.md). */
export const maxBodyLength = 1_000_000;

/** Fields shared by create and update. @see spec § POST /api/posts */
const postFields = {
  title: z.string().max(300).nullable().optional(),
  sourceName: z.string().max(300).nullable().optional(),
  body: z.string().max(maxBodyLength).nullable().optional(),
  bodyMarkdown: z.string().max(maxBodyLength).nullable().optional(),
  slug: z.string().max(200).optional(),
  status: postStatus.optional(),
  visibility: postVisibility.optional(),
  pinned: z.boolean().optional(),
  featured: z.boolean().optional(),
  pinnedAt: unixSeconds.nullable().optional(),
  featuredAt: unixSeconds.nullable().optional(),
  url: absoluteUrl.nullable().optional(),
  sourceUrl: absoluteUrl.nullable().optional(),
  quoteText: z.string().nullable().optional(),
  summary: z.string().max(5000).nullable().optional(),
  rating: z.number().int().min(0).max(5).nullable().optional(),
  collectionIds: z.array(typeId("col")).max(20).optional(),
  collectionEntries: z.array(collectionEntry).max(20).optional(),
  language: languageTag.nullable().optional(),
  publishedAt: unixSeconds.nullable().optional(),
  attachments: z.array(attachmentInput).max(20).optional(),
};

/** Input of `posts.create`. */
export const createPostInput = z.object({
  format: postFormat,
  ...postFields,
  path: z.string().max(200).optional(),
  replyToId: typeId("pst").nullable().optional(),
  quietReply: z.boolean().optional(),
  translationOfId: typeId("pst").nullable().optional(),
  createdAt: unixSeconds.optional(),
  updatedAt: unixSeconds.optional(),
});

/** Parsed input of `posts.create`. */
export type CreatePostInput = z.output<typeof createPostInput>;

/** Input of `posts.update`: the create fields except the create-only ones, all optional. */
export const updatePostInput = z.object({
  id: typeId("pst"),
  format: postFormat.optional(),
  ...postFields,
  /** `markdown`: the answer carries bodyMarkdown in place of the rendered fields. */
  content: contentParam,
});

/** Parsed input of `posts.update`. */
export type UpdatePostInput = z.output<typeof updatePostInput>;

/** `{ id }` plus the `content` read option. */
export const postIdInput = z.object({ id: typeId("pst"), content: contentParam });

/** Input of `posts.list`. @see spec § GET /api/posts */
export const listPostsInput = z.object({
  format: postFormat.optional(),
  status: postStatus.default("published"),
  lang: languageTag.optional(),
  cursor: cursorParam,
  limit: limitParam({ max: 100, default: 100 }),
  content: contentParam,
});

/** Input of `posts.slug`. @see spec § GET /api/posts/slug */
export const slugInput = z.object({
  mode: z.enum(["suggest", "check"]),
  title: z.string().max(1000).optional(),
  slug: z.string().max(1000).optional(),
  postId: typeId("pst").optional(),
});

/** Input of `publicPosts.get`. */
export const publicPostInput = z.object({
  slug: z.string().min(1).max(1000),
  content: contentParam,
  lang: languageTag.optional(),
});
