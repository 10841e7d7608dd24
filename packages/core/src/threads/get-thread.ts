import { defineOperation } from "../operation.js";
import { findOwnerThread } from "./find-thread.js";
import { threadOutput } from "./thread-output.js";
import { getThreadInput, wantsFold } from "./thread-schemas.js";
import { type OwnerThreadView, toThreadViews } from "./thread-view.js";

/** The Thread of a post (root or reply), drafts and private Threads included. @see spec § Threads */
export const getThread = defineOperation({
  id: "threads.get",
  access: "owner",
  description: "Reads a Thread by the ID of any of its posts.",
  hints: { readOnly: true },
  input: getThreadInput,
  output: threadOutput,
  run: async (ctx, input): Promise<OwnerThreadView> => {
    const root = await findOwnerThread(ctx.db, input.id);
    const [thread] = await toThreadViews(ctx, [root], "editing", {
      fold: wantsFold(input),
      content: input.content,
    });
    return thread as OwnerThreadView;
  },
});
