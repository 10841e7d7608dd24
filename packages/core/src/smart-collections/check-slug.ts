import { defineOperation } from "../operation.js";
import { slugAnswerOutput } from "../posts/post-output.js";
import { answerSlugQuery } from "../posts/slug-answer.js";
import { smartCollectionSlugInput } from "./smart-collection-schemas.js";

/**
 * `mode=suggest` turns a title into a free slug; `mode=check` says whether a slug is free (the
 * smart collection named by `smartCollectionId` may keep its own). Reserved or malformed
 * candidates are 400. @see spec § GET /api/smart-collections/slug
 */
export const checkSmartCollectionSlug = defineOperation({
  id: "smartCollections.slug",
  access: "owner",
  description: "Suggests a free slug for a smart collection title, or checks whether a slug is free.",
  hints: { readOnly: true },
  input: smartCollectionSlugInput,
  output: slugAnswerOutput,
  run: (ctx, input) =>
    answerSlugQuery(ctx, {
      mode: input.mode,
      slug: input.slug,
      title: input.title,
      ownerId: input.smartCollectionId,
      idPrefix: "smc",
    }),
});
