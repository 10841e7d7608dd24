import { defineOperation } from "../operation.js";
import { slugAnswerOutput } from "./post-output.js";
import { slugInput } from "./post-schemas.js";
import { answerSlugQuery } from "./slug-answer.js";

/**
 * `mode=suggest` turns a title into a free slug; `mode=check` says whether a slug is free (the
 * post named by `postId` may keep its own). Reserved or invalid candidates are 400.
 * @see spec § GET /api/posts/slug
 */
export const checkPostSlug = defineOperation({
  id: "posts.slug",
  access: "owner",
  description: "Suggests a free slug for a title, or checks whether a slug is free.",
  hints: { readOnly: true },
  input: slugInput,
  output: slugAnswerOutput,
  run: (ctx, input) =>
    answerSlugQuery(ctx, {
      mode: input.mode,
      slug: input.slug,
      title: input.title,
      ownerId: input.postId,
      idPrefix: "pst",
    }),
});
