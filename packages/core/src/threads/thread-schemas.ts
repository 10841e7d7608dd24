import * as z from "zod";
import { type MediaKind, mediaKindBit, mediaKinds } from "../files/media-kinds.js";
import { languageTag, postFormat, postStatus } from "../posts/post-schemas.js";
import { contentParam, cursorParam, limitParam } from "../shared/list-params.js";
import { typeId } from "../shared/type-id.js";

/** The Thread list orders. @see spec § Threads (Orders) */
export const threadSort = z.enum(["activity", "published", "updated", "oldest", "rating"]);
/** One Thread list order. */
export type ThreadSort = z.infer<typeof threadSort>;

/** The `media` filter: roots with an attachment of one of the kinds, with any, or with none. */
export type MediaFilter = { kind: "any" } | { kind: "none" } | { kind: "kinds"; mask: number };

/** `media`: `any`, `none`, or a list of attachment kinds (the HTTP adapter splits `image,video`). */
const mediaParam = z
  .union([z.enum(["any", "none"]), z.array(z.enum(mediaKinds)).min(1)])
  .transform((value): MediaFilter => {
    if (value === "any" || value === "none") return { kind: value };
    return { kind: "kinds", mask: value.reduce((mask, kind) => mask | mediaKindBit(kind as MediaKind), 0) };
  });

/**
 * Read options shared by every Thread read: `fold: true` adds the fold (`include=fold` over HTTP);
 * `content: "markdown"` returns `bodyMarkdown`. @see spec § Conventions rule 3
 */
const threadReadFields = {
  fold: z.boolean().optional(),
  content: contentParam,
};

/** True when a Thread read asked for the fold. */
export function wantsFold(input: { fold?: boolean | undefined }): boolean {
  return input.fold === true;
}

const listFields = {
  sort: threadSort.optional(),
  format: postFormat.optional(),
  /**
   * Collection slugs or IDs; a root in any of them matches. A slug longer than any collection's
   * names none, like any unknown slug (empty result, spec § Threads rule 6; it was a 400), and up
   * to 100 may be named (20 was a limit the spec does not have).
   */
  collection: z.array(z.string().min(1)).min(1).max(100).optional(),
  year: z.number().int().min(1970).max(9999).optional(),
  media: mediaParam.optional(),
  title: z.enum(["any", "none"]).optional(),
  replies: z.enum(["any", "none"]).optional(),
  lang: languageTag.optional(),
  cursor: cursorParam,
  limit: limitParam({ max: 100, default: 20 }),
  ...threadReadFields,
};

/**
 * Input of `threads.list` (`GET /api/threads`). `visibility=hidden` is the URL spelling of
 * `latest_hidden`; the stored name is read too. @see spec § Threads
 */
export const listThreadsInput = z.object({
  ...listFields,
  visibility: z.enum(["public", "featured", "hidden", "latest_hidden", "any", "private"]).optional(),
  status: postStatus.default("published"),
});

/** Input of `publicThreads.list` (`GET /api/public/threads`): no `status`, no `visibility=private`. */
export const listPublicThreadsInput = z.object({
  ...listFields,
  visibility: z.enum(["public", "featured", "hidden", "latest_hidden", "any"]).optional(),
});

/** Parsed input of either Thread list. */
export type ListThreadsInput = z.output<typeof listThreadsInput>;
/** Parsed input of the public Thread list. */
export type ListPublicThreadsInput = z.output<typeof listPublicThreadsInput>;

/** Input of `threads.get` (`GET /api/threads/:id`): any post of the Thread. */
export const getThreadInput = z.object({ id: typeId("pst"), ...threadReadFields });
/** Input of `publicThreads.get` (`GET /api/public/threads/:slug`): any post of the Thread. */
export const getPublicThreadInput = z.object({
  slug: z.string().min(1).max(1000),
  ...threadReadFields,
  /** A language view: a translated Thread answers with its version in this language. */
  lang: languageTag.optional(),
});

const threadPostsFields = {
  cursor: cursorParam,
  limit: limitParam({ max: 100, default: 100 }),
  content: contentParam,
};

/** Input of `threads.listPosts` (`GET /api/threads/:id/posts`). */
export const listThreadPostsInput = z.object({
  id: typeId("pst"),
  status: postStatus.default("published"),
  ...threadPostsFields,
});

/** Input of `publicThreads.listPosts` (`GET /api/public/threads/:slug/posts`). */
export const listPublicThreadPostsInput = z.object({
  slug: z.string().min(1).max(1000),
  ...threadPostsFields,
  /** A language view: a translated Thread answers with its version's posts. */
  lang: languageTag.optional(),
});
