import { firstFreeAddress, isAddressFree } from "../custom-urls/addresses.js";
import { invalidField } from "../errors.js";
import { defineOperation } from "../operation.js";
import { slugify } from "../shared/slug.js";
import { checkSlugCandidate } from "./post-content.js";
import { slugInput } from "./post-schemas.js";

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
  run: async (ctx, input) => {
    if (input.mode === "check") {
      if (input.slug === undefined) throw invalidField("slug", "Required with mode=check");
      checkSlugCandidate(input.slug);
      return { slug: input.slug, available: await isAddressFree(ctx.db, input.slug, input.postId) };
    }
    if (input.title === undefined) throw invalidField("title", "Required with mode=suggest");
    const candidate = slugify(input.title, 60);
    if (candidate === "") throw invalidField("title", "The title gives no usable slug");
    checkSlugCandidate(candidate, "title");
    const slug = await firstFreeAddress(ctx.db, {
      base: candidate,
      fallbackSuffix: ctx.ids.generate("pst").slice(-8),
      exceptOwnerId: input.postId,
    });
    return { slug };
  },
});
