import { loadAttachments } from "../attachments/load-attachments.js";
import { invalidField } from "../errors.js";
import { defineOperation } from "../operation.js";
import { decodeCursor, encodeCursor } from "../shared/cursor.js";
import { selectPosts } from "./post-query.js";
import { listPostsInput } from "./post-schemas.js";
import { type PostView, toPostView } from "./post-view.js";

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
  run: async (ctx, input) => {
    const order = input.status === "published" ? "posts.published" : "posts.updated";
    const column = input.status === "published" ? "p.published_at" : "p.updated_at";
    let query = selectPosts(ctx.db).where("p.status", "=", input.status);
    if (input.format) query = query.where("p.format", "=", input.format);
    if (input.cursor) {
      const [time, id] = decodeCursor(input.cursor, order, 2);
      if (typeof time !== "number" || typeof id !== "string")
        throw invalidField("cursor", "Unreadable cursor");
      query = query.where((eb) =>
        eb.or([eb(column, "<", time), eb.and([eb(column, "=", time), eb("p.id", "<", id)])]),
      );
    }
    const rows = await query
      .orderBy(column, "desc")
      .orderBy("p.id", "desc")
      .limit(input.limit + 1)
      .execute();
    const page = rows.slice(0, input.limit);
    const attachments = await loadAttachments(
      ctx.db,
      page.map((row) => row.id),
    );
    const posts: PostView[] = page.map((row) => toPostView(ctx, row, attachments.get(row.id) ?? [], input));
    const last = page.at(-1);
    const nextCursor =
      rows.length > input.limit && last
        ? encodeCursor({
            order,
            keys: [input.status === "published" ? (last.published_at ?? 0) : last.updated_at, last.id],
          })
        : null;
    return { posts, nextCursor };
  },
});
