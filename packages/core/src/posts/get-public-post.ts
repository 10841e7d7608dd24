import { loadAttachments } from "../attachments/load-attachments.js";
import { publicCollectionRefsOf } from "../collections/public-refs.js";
import { notFound } from "../errors.js";
import { defineOperation, type OperationContext } from "../operation.js";
import { publicPostOutput } from "./post-output.js";
import { findPost, findReadablePost, type PostRow } from "./post-query.js";
import { publicPostInput } from "./post-schemas.js";
import { type PublicPostView, toPublicPostView, type ViewOptions } from "./post-view.js";
import { withReadableParents } from "./readable-parents.js";
import { readableVersionIn } from "./translation-group.js";

/**
 * One published post in the reading view by canonical slug. Drafts, private Threads and replies of
 * unpublished roots are 404; latest-hidden posts are readable. @see spec § GET /api/public/posts/:slug
 */
export const getPublicPost = defineOperation({
  id: "publicPosts.get",
  access: "public",
  description: "Reads one published, visible post by slug in the reading view.",
  hints: { readOnly: true },
  input: publicPostInput,
  output: publicPostOutput,
  run: async (ctx, input) => {
    const named = await findReadablePost(ctx.db, input.slug);
    if (!named) throw notFound("post", input.slug);
    return readablePostView(ctx, named, input);
  },
});

/**
 * The reading view of `named`, a post readers may see (found by `findReadablePost` or by ID): in a
 * language view a translated root answers with its version in that language.
 */
export async function readablePostView(
  ctx: OperationContext,
  named: PostRow,
  input: ViewOptions & { lang?: string | undefined },
): Promise<PublicPostView> {
  const version = input.lang === undefined ? undefined : await readableVersionIn(ctx.db, named, input.lang);
  const row = (version && (await findPost(ctx.db, version))) || named;
  // Three reads that need only the row, sent together: on PostgreSQL each is a round trip, and the
  // pool runs them side by side (SQLite runs them one after another on its one connection).
  const [, attachments, collections] = await Promise.all([
    withReadableParents(ctx.db, [row]),
    loadAttachments(ctx.db, [row.id]),
    publicCollectionRefsOf(ctx, [row.thread_id]),
  ]);
  return toPublicPostView(
    ctx,
    row,
    attachments.get(row.id) ?? [],
    input,
    collections.get(row.thread_id) ?? [],
  );
}
