import { defineOperation } from "../operation.js";
import { postDetailOutput } from "./post-output.js";
import { postIdInput } from "./post-schemas.js";
import { readPost } from "./read-post.js";

/** One post in the editing view with `collectionIds` and `threadPosition`. @see spec § GET /api/posts/:id */
export const getPost = defineOperation({
  id: "posts.get",
  access: "owner",
  description: "Reads one post in the editing view, with its collections and Thread position.",
  hints: { readOnly: true },
  input: postIdInput,
  output: postDetailOutput,
  run: (ctx, input) => readPost(ctx, input.id, { content: input.content, withPosition: true }),
});
