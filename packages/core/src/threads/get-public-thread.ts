import { defineOperation } from "../operation.js";
import { findPublicThreadIn } from "./find-thread.js";
import { publicThreadOutput } from "./thread-output.js";
import { getPublicThreadInput, wantsFold } from "./thread-schemas.js";
import { type PublicThreadView, toThreadViews } from "./thread-view.js";

/**
 * The Thread of a published post named by slug (root or reply), in the reading view; 404 for a
 * draft or private one, latest-hidden Threads included. @see spec § Threads
 */
export const getPublicThread = defineOperation({
  id: "publicThreads.get",
  access: "public",
  description: "Reads a public Thread by the slug of any of its posts.",
  hints: { readOnly: true },
  input: getPublicThreadInput,
  output: publicThreadOutput,
  run: async (ctx, input): Promise<PublicThreadView> => {
    const root = await findPublicThreadIn(ctx.db, input.slug, input.lang);
    const [thread] = await toThreadViews(ctx, [root], "reading", {
      fold: wantsFold(input),
      content: input.content,
    });
    return thread as PublicThreadView;
  },
});
