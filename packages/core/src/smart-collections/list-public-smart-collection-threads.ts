import { notFound } from "../errors.js";
import { defineOperation } from "../operation.js";
import { asRootRow } from "../threads/thread-rows.js";
import { type PublicThreadView, toThreadViews } from "../threads/thread-view.js";
import { pageOfSmartCollection } from "./list-threads.js";
import { publicSmartCollectionThreadsOutput } from "./smart-collection-output.js";
import { listPublicSmartCollectionThreadsInput } from "./smart-collection-schemas.js";

/** What a reader's page shows of the smart collection itself; `layout` is the one in effect. */
export interface PublicSmartCollection {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  sortOrder: string;
  layout: "list" | "grid";
}

/**
 * A smart collection's page for readers, by slug: the smart collection (its `layout: null` read
 * as the site's `ARCHIVE_DEFAULT_LAYOUT` in effect) and published, non-private Threads in the
 * reading view, in the collection's order. @see docs/smart-collections.md § Reading the Threads
 */
export const listPublicSmartCollectionThreads = defineOperation({
  id: "publicSmartCollections.listThreads",
  access: "public",
  description: "Lists the public Threads a smart collection gathers, by its slug, one page at a time.",
  hints: { readOnly: true },
  input: listPublicSmartCollectionThreadsInput,
  output: publicSmartCollectionThreadsOutput,
  run: async (
    ctx,
    input,
  ): Promise<{
    smartCollection: PublicSmartCollection;
    threads: PublicThreadView[];
    nextCursor: string | null;
  }> => {
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
    const smartCollection: PublicSmartCollection = {
      id: row.id,
      slug: row.slug,
      title: row.title,
      description: row.description,
      sortOrder: row.sort_order,
      layout: (row.layout as PublicSmartCollection["layout"] | null) ?? ctx.settings.archiveDefaultLayout,
    };
    return { smartCollection, threads, nextCursor: page.nextCursor };
  },
});
