import { defineOperation } from "../operation.js";
import { listRoots } from "./list-roots.js";
import { resolveListQuery } from "./thread-filter.js";
import { publicThreadPageOutput } from "./thread-output.js";
import { asRootRow, columnsFor } from "./thread-rows.js";
import { listPublicThreadsInput, wantsFold } from "./thread-schemas.js";
import { type PublicThreadView, toThreadViews } from "./thread-view.js";

/**
 * The reader's Thread list: published, non-private roots in the reading view. Unfiltered it is
 * the homepage: `public` Threads only, pinned on top. @see spec § Threads
 */
export const listPublicThreads = defineOperation({
  id: "publicThreads.list",
  access: "public",
  description: "Lists the public Threads of the site, one page at a time, optionally with folds.",
  hints: { readOnly: true },
  input: listPublicThreadsInput,
  output: publicThreadPageOutput,
  run: async (ctx, input): Promise<{ threads: PublicThreadView[]; nextCursor: string | null }> => {
    const query = resolveListQuery(input, "public", ctx.settings);
    const page = await listRoots(ctx.db, query, input, columnsFor("reading", input.content));
    const threads = await toThreadViews(ctx, page.roots.map(asRootRow), "reading", {
      fold: wantsFold(input),
      content: input.content,
    });
    return { threads, nextCursor: page.nextCursor };
  },
});
