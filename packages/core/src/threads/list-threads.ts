import { defineOperation } from "../operation.js";
import { listRoots } from "./list-roots.js";
import { resolveListQuery } from "./thread-filter.js";
import { threadPageOutput } from "./thread-output.js";
import { asRootRow } from "./thread-rows.js";
import { listThreadsInput, wantsFold } from "./thread-schemas.js";
import { type OwnerThreadView, toThreadViews } from "./thread-view.js";

/**
 * The author's Thread list: roots of every visibility (unless filtered) in the editing view,
 * published by default, drafts with `status=draft`. @see spec § Threads
 */
export const listThreads = defineOperation({
  id: "threads.list",
  access: "owner",
  description: "Lists the site's Threads by the chosen order and filters, one page at a time.",
  hints: { readOnly: true },
  input: listThreadsInput,
  output: threadPageOutput,
  run: async (ctx, input): Promise<{ threads: OwnerThreadView[]; nextCursor: string | null }> => {
    const page = await listRoots(ctx.db, resolveListQuery(input, "owner", ctx.settings), input);
    const threads = await toThreadViews(ctx, page.roots.map(asRootRow), "editing", {
      fold: wantsFold(input),
      content: input.content,
    });
    return { threads, nextCursor: page.nextCursor };
  },
});
