import { defineOperation } from "../operation.js";
import { smartCollectionsListOutput } from "./smart-collection-output.js";
import { listSmartCollectionsInput } from "./smart-collection-schemas.js";
import type { SmartCollectionListItem } from "./smart-collection-view.js";
import { smartCollectionSummaries } from "./summaries.js";

/**
 * Every smart collection in creation order, each with `threadCount` and `recentActivityAt` for
 * the caller; `lang` counts only Threads in that language. @see spec § GET /api/smart-collections
 */
export const listSmartCollections = defineOperation({
  id: "smartCollections.list",
  access: "owner",
  description: "Lists every smart collection with its Thread count and most recent activity.",
  hints: { readOnly: true },
  input: listSmartCollectionsInput,
  output: smartCollectionsListOutput,
  run: async (ctx, input): Promise<{ smartCollections: SmartCollectionListItem[] }> => ({
    smartCollections: await smartCollectionSummaries(ctx, ctx.caller, { lang: input.lang }),
  }),
});
