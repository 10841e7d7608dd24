import { defineOperation } from "../operation.js";
import { asRootRow } from "../threads/thread-rows.js";
import { type OwnerThreadView, toThreadViews } from "../threads/thread-view.js";
import { pageOfSmartCollection } from "./list-threads.js";
import { smartCollectionThreadsOutput } from "./smart-collection-output.js";
import { findSmartCollection } from "./smart-collection-rows.js";
import { listSmartCollectionThreadsInput } from "./smart-collection-schemas.js";

/**
 * The Threads a smart collection gathers, in its order, one page at a time, in the editing view
 * (private Threads included). @see docs/smart-collections.md § Reading the Threads
 */
export const listSmartCollectionThreads = defineOperation({
  id: "smartCollections.listThreads",
  access: "owner",
  description: "Lists the Threads a smart collection gathers, in its order, one page at a time.",
  hints: { readOnly: true },
  input: listSmartCollectionThreadsInput,
  output: smartCollectionThreadsOutput,
  run: async (ctx, input): Promise<{ threads: OwnerThreadView[]; nextCursor: string | null }> => {
    const row = await findSmartCollection(ctx.db, input.id);
    const page = await pageOfSmartCollection(ctx, row, { caller: ctx.caller, language: input.lang }, input);
    const threads = await toThreadViews(ctx, page.roots.map(asRootRow), "editing", {
      fold: input.fold === true,
      content: input.content,
    });
    return { threads, nextCursor: page.nextCursor };
  },
});
