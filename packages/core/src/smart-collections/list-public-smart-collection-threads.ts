import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { asRootRow } from "../threads/thread-rows.js";
import { type PublicThreadView, toThreadViews } from "../threads/thread-view.js";
import { pageOfSmartCollection } from "./list-threads.js";
import { listPublicSmartCollectionThreadsInput } from "./smart-collection-schemas.js";

/**
 * A smart collection's page for readers, by slug: published, non-private Threads in the reading
 * view, in the collection's order. @see docs/smart-collections.md § Reading the Threads
 */
export const listPublicSmartCollectionThreads = defineOperation({
  id: "publicSmartCollections.listThreads",
  access: "public",
  description: "Lists the public Threads a smart collection gathers, by its slug, one page at a time.",
  hints: { readOnly: true },
  input: listPublicSmartCollectionThreadsInput,
  run: async (ctx, input): Promise<{ threads: PublicThreadView[]; nextCursor: string | null }> => {
    const row = await ctx.db
      .selectFrom("smart_collections")
      .selectAll()
      .where("slug", "=", input.slug)
      .executeTakeFirstOrThrow(() => notFound("smart collection"));
    const page = await pageOfSmartCollection(ctx, row, { caller: ctx.caller, language: input.lang }, input);
    const threads = await toThreadViews(ctx, page.roots.map(asRootRow), "reading", {
      fold: input.fold === true,
      content: input.content,
    });
    return { threads, nextCursor: page.nextCursor };
  },
});
