import { firstFreeAddress, isAddressFree } from "../custom-urls/addresses.js";
import type { EngineContext } from "../deps.js";
import { invalidField } from "../errors.js";
import { slugify } from "../shared/slug.js";
import { checkSlugCandidate } from "./post-content.js";

/**
 * The answer of a slug endpoint (`GET /api/posts/slug`, `GET /api/smart-collections/slug`), one
 * address space for all: `check` says whether `slug` is free (the owner `ownerId` may keep its
 * own); `suggest` turns `title` into the first free slug. Reserved or invalid candidates are 400.
 */
export async function answerSlugQuery(
  ctx: Pick<EngineContext, "db" | "ids">,
  input: {
    mode: "suggest" | "check";
    slug?: string | undefined;
    title?: string | undefined;
    ownerId?: string | undefined;
    /** The TypeID prefix whose random tail makes the last-resort suffix (`pst`, `smc`). */
    idPrefix: string;
  },
): Promise<{ slug: string; available?: boolean }> {
  if (input.mode === "check") {
    if (input.slug === undefined) throw invalidField("slug", "Required with mode=check");
    checkSlugCandidate(input.slug);
    return { slug: input.slug, available: await isAddressFree(ctx.db, input.slug, input.ownerId) };
  }
  if (input.title === undefined) throw invalidField("title", "Required with mode=suggest");
  const candidate = slugify(input.title, 60);
  if (candidate === "") throw invalidField("title", "The title gives no usable slug");
  checkSlugCandidate(candidate, "title");
  const slug = await firstFreeAddress(ctx.db, {
    base: candidate,
    fallbackSuffix: ctx.ids.generate(input.idPrefix).slice(-8),
    exceptOwnerId: input.ownerId,
  });
  return { slug };
}
