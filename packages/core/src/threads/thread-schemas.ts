import * as z from "zod";
import { type MediaKind, mediaKindBit, mediaKinds } from "../attachments/media-kinds.js";
import { languageTag, postFormat, postStatus } from "../posts/post-schemas.js";
import { boolParam, contentParam, cursorParam, intParam, limitParam } from "../shared/list-params.js";
import { typeId } from "../shared/type-id.js";

/** The Thread list orders. @see spec § Threads (Orders) */
export const threadSort = z.enum(["activity", "published", "updated", "oldest", "rating"]);
/** One Thread list order. */
export type ThreadSort = z.infer<typeof threadSort>;

/** The `media` filter: roots with an attachment of one of the kinds, with any, or with none. */
export type MediaFilter = { kind: "any" } | { kind: "none" } | { kind: "kinds"; mask: number };

const mediaParam = z.string().transform((text, ctx): MediaFilter => {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.length === 1 && (parts[0] === "any" || parts[0] === "none")) return { kind: parts[0] };
  let mask = 0;
  for (const part of parts) {
    if (!(mediaKinds as readonly string[]).includes(part)) {
      ctx.addIssue({
        code: "custom",
        message: `Expected any, none, or a comma list of ${mediaKinds.join(", ")}`,
      });
      return z.NEVER;
    }
    mask |= mediaKindBit(part as MediaKind);
  }
  return { kind: "kinds", mask };
});

/**
 * `include` as the spec's comma-separated text (HTTP) or a list (MCP); values it does not offer
 * are skipped. @see spec § Conventions rule 3
 */
const includeParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((value) =>
    (Array.isArray(value) ? value : (value ?? "").split(","))
      .map((part) => part.trim())
      .filter((part) => part !== ""),
  );

/**
 * Read options shared by every Thread read: `include=fold` (or `fold: true`, as MCP passes it)
 * adds the fold; `content=markdown` returns `bodyMarkdown`.
 */
const threadReadFields = {
  include: includeParam,
  fold: boolParam.optional(),
  content: contentParam,
};

/** True when a Thread read asked for the fold, by `include=fold` or by `fold: true`. */
export function wantsFold(input: { include: string[]; fold?: boolean | undefined }): boolean {
  return input.fold === true || input.include.includes("fold");
}

const listFields = {
  sort: threadSort.optional(),
  format: postFormat.optional(),
  collection: z.string().min(1).max(2000).optional(),
  year: intParam.pipe(z.number().int().min(1970).max(9999)).optional(),
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
export const getPublicThreadInput = z.object({ slug: z.string().min(1).max(1000), ...threadReadFields });

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
});
