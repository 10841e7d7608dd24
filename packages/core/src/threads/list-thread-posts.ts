import { defineOperation } from "../operation.js";
import { findOwnerThread } from "./find-thread.js";
import { threadPostsPageOutput } from "./thread-output.js";
import { readThreadPosts } from "./thread-posts.js";
import { listThreadPostsInput } from "./thread-schemas.js";

/**
 * A Thread's posts in Thread order, editing view; `status` picks published (default) or draft
 * posts. `cursor` takes a `nextCursor` or a fold's `gap.cursor`. @see spec § Threads
 */
export const listThreadPosts = defineOperation({
  id: "threads.listPosts",
  access: "owner",
  description: "Lists the posts of a Thread in Thread order.",
  hints: { readOnly: true },
  input: listThreadPostsInput,
  output: threadPostsPageOutput,
  run: async (ctx, input) => readThreadPosts(ctx, await findOwnerThread(ctx.db, input.id), "editing", input),
});
