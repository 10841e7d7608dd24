import { loadAttachments } from "../attachments/load-attachments.js";
import { defineOperation } from "../operation.js";
import { type KeysetOrder, pageByKeys } from "../pagination/keyset.js";
import { postPageOutput } from "./post-output.js";
import { type PostRow, selectPosts } from "./post-query.js";
import { listPostsInput } from "./post-schemas.js";
import { type PostView, toPostView } from "./post-view.js";

/** The list's order by status: published posts (which always have `publishedAt`) by it, drafts by last edit. */
const orders = {
  published: {
    name: "posts.published",
    direction: "desc",
    keys: [
      { column: "p.published_at", type: "integer" },
      { column: "p.id", type: "string" },
    ],
  },
  draft: {
    name: "posts.updated",
    direction: "desc",
    keys: [
      { column: "p.updated_at", type: "integer" },
      { column: "p.id", type: "string" },
    ],
  },
} satisfies Record<"published" | "draft", KeysetOrder<PostRow>>;

/**
 * Every post, roots and replies alike, one page at a time: published by `publishedAt` newest first
 * (id breaking ties, pins not moved up), drafts by `updatedAt`. Keyset pagination on an index.
 * @see spec § GET /api/posts
 */
export const listPosts = defineOperation({
  id: "posts.list",
  access: "owner",
  description: "Lists every post, roots and replies, newest first, one page at a time.",
  hints: { readOnly: true },
  input: listPostsInput,
  output: postPageOutput,
  run: async (ctx, input) => {
    let query = selectPosts(ctx.db).where("p.status", "=", input.status);
    if (input.format) query = query.where("p.format", "=", input.format);
    if (input.lang) query = query.where("p.language", "=", input.lang);
    const { rows: page, nextCursor } = await pageByKeys(query, orders[input.status], input);
    const attachments = await loadAttachments(
      ctx.db,
      page.map((row) => row.id),
    );
    const posts: PostView[] = page.map((row) => toPostView(ctx, row, attachments.get(row.id) ?? [], input));
    return { posts, nextCursor };
  },
});
