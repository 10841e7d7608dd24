import { defineOperation } from "../operation.js";
import { extend } from "../shared/extend.js";
import type { SmartCollectionListItem } from "../smart-collections/summaries.js";
import { smartCollectionSummaries } from "../smart-collections/summaries.js";
import { collectionsListOutput } from "./collection-output.js";
import { listCollectionsInput } from "./collection-schemas.js";
import {
  type CollectionListItem,
  type DirectoryItemView,
  toCollectionView,
  toDirectoryItemView,
} from "./collection-view.js";
import { loadDirectory } from "./directory.js";

/**
 * Every collection with its figures, every smart collection, and the directory in order.
 * `threadCount` counts published Threads of every visibility (the caller is the owner; drafts do
 * not count); `recentActivityAt` is their newest activity, or the collection's own `updatedAt`
 * with none; `lang` counts only Threads in that language. A bounded number of queries whatever
 * the number of collections: the collections, one aggregate over `collection_figures`, the
 * directory, and the smart collections' summaries. `view=compose`: collections by recent activity
 * (newest first), no smart collections, no directory. @see spec § GET /api/collections
 */
export const listCollections = defineOperation({
  id: "collections.list",
  access: "owner",
  description: "Lists collections and smart collections with Thread counts, and the directory in order.",
  hints: { readOnly: true },
  input: listCollectionsInput,
  output: collectionsListOutput,
  run: async (
    ctx,
    input,
  ): Promise<{
    collections: CollectionListItem[];
    smartCollections: SmartCollectionListItem[];
    directoryItems: DirectoryItemView[];
  }> => {
    const rows = await ctx.db
      .selectFrom("collections")
      .selectAll()
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    let figuresQuery = ctx.db
      .selectFrom("collection_figures")
      .select((eb) => [
        "collection_id",
        eb.fn.sum<number>("thread_count").as("thread_count"),
        eb.fn.max("recent_activity_at").as("recent_activity_at"),
      ])
      .groupBy("collection_id");
    if (input.lang !== undefined) figuresQuery = figuresQuery.where("language", "=", input.lang);
    const figures = new Map((await figuresQuery.execute()).map((row) => [row.collection_id, row]));
    const collections: CollectionListItem[] = rows.map((row) => {
      const view = toCollectionView(row);
      const figure = figures.get(row.id);
      return extend(view, {
        threadCount: figure ? Number(figure.thread_count) : 0,
        recentActivityAt: figure ? Number(figure.recent_activity_at) : view.updatedAt,
      });
    });
    if (input.view === "compose") {
      collections.sort(
        (a, b) => b.recentActivityAt - a.recentActivityAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      );
      return { collections, smartCollections: [], directoryItems: [] };
    }
    const smartCollections = await smartCollectionSummaries(ctx, ctx.caller, { lang: input.lang });
    // An item whose smart collection was deleted (the smart collections module leaves it) is not listed.
    const targets = new Set([...collections.map((c) => c.id), ...smartCollections.map((s) => s.id)]);
    const items = (await loadDirectory(ctx.db)).filter((item) => {
      const target = item.collection_id ?? item.smart_collection_id;
      return target === null || targets.has(target);
    });
    const directoryItems: DirectoryItemView[] = items.map(toDirectoryItemView);
    // Every collection and smart collection is in the directory; those without an item come last.
    const placed = new Set(items.flatMap((item) => [item.collection_id, item.smart_collection_id]));
    for (const collection of collections) {
      if (!placed.has(collection.id)) directoryItems.push(unplaced("collection", collection));
    }
    for (const smart of smartCollections) {
      if (!placed.has(smart.id)) directoryItems.push(unplaced("smart_collection", smart));
    }
    return { collections, smartCollections, directoryItems };
  },
});

function unplaced(
  type: "collection" | "smart_collection",
  target: { id: string; createdAt: number; updatedAt: number },
): DirectoryItemView {
  return {
    id: null,
    type,
    collectionId: type === "collection" ? target.id : null,
    smartCollectionId: type === "smart_collection" ? target.id : null,
    label: null,
    url: null,
    description: null,
    position: null,
    createdAt: target.createdAt,
    updatedAt: target.updatedAt,
  };
}
