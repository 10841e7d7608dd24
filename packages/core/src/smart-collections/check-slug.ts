import { firstFreeAddress, isAddressFree } from "../custom-urls/addresses.js";
import { invalidField } from "../errors.js";
import { defineOperation } from "../operation.js";
import { checkSlugCandidate } from "../posts/post-content.js";
import { slugify } from "../shared/slug.js";
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
  run: async (ctx, input): Promise<{ slug: string; available?: boolean }> => {
    if (input.mode === "check") {
      if (input.slug === undefined) throw invalidField("slug", "Required with mode=check");
      checkSlugCandidate(input.slug);
      return {
        slug: input.slug,
        available: await isAddressFree(ctx.db, input.slug, input.smartCollectionId),
      };
    }
    if (input.title === undefined) throw invalidField("title", "Required with mode=suggest");
    const candidate = slugify(input.title, 60);
    if (candidate === "") throw invalidField("title", "The title gives no usable slug");
    checkSlugCandidate(candidate, "title");
    const slug = await firstFreeAddress(ctx.db, {
      base: candidate,
      fallbackSuffix: ctx.ids.generate("smc").slice(-8),
      exceptOwnerId: input.smartCollectionId,
    });
    return { slug };
  },
});
