import { defineOperation } from "../operation.js";
import { findPublicThreadIn } from "./find-thread.js";
import { publicThreadPostsPageOutput } from "./thread-output.js";
import { readThreadPosts } from "./thread-posts.js";
import { listPublicThreadPostsInput } from "./thread-schemas.js";

/**
 * A readable Thread's published posts in Thread order, reading view; 404 for a draft or private
 * Thread. @see spec § Threads
 */
export const listPublicThreadPosts = defineOperation({
  id: "publicThreads.listPosts",
  access: "public",
  description: "Lists the visible posts of a public Thread in Thread order.",
  hints: { readOnly: true },
  input: listPublicThreadPostsInput,
  output: publicThreadPostsPageOutput,
  run: async (ctx, input) =>
    readThreadPosts(ctx, await findPublicThreadIn(ctx.db, input.slug, input.lang), "reading", {
      ...input,
      status: "published",
    }),
});
