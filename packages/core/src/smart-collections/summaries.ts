import type { Caller } from "../caller.js";
import type { EngineContext } from "../deps.js";
import { extend } from "../shared/extend.js";
import { cachedByContentVersion } from "./figures-cache.js";
import { selectionFilter } from "./selection.js";
import { listSmartCollectionRows } from "./smart-collection-rows.js";
import { type SmartCollectionListItem, selectionOf, toSmartCollection } from "./smart-collection-view.js";
import { matchFigures } from "./thread-figures.js";

export type { SmartCollectionListItem } from "./smart-collection-view.js";

/**
 * Every smart collection in creation order with `threadCount` and `recentActivityAt` for the
 * caller (a private Thread counts only for the owner), optionally only Threads in `lang`. A few
 * queries whatever the number of smart collections: the rows, the content version, and, when the
 * figures are not cached for that version, one scan that counts them all. With no match,
 * `recentActivityAt` is the smart collection's own `updatedAt`.
 * @see spec § GET /api/smart-collections, § GET /api/collections
 */
export async function smartCollectionSummaries(
  ctx: EngineContext,
  caller: Caller,
  opts: { lang?: string | undefined },
): Promise<SmartCollectionListItem[]> {
  const rows = await listSmartCollectionRows(ctx.db);
  if (rows.length === 0) return [];
  const scope = { caller, timeZone: ctx.settings.timeZone, language: opts.lang };
  const key = JSON.stringify([
    caller.role === "public",
    scope.timeZone,
    opts.lang ?? null,
    rows.map((row) => [row.id, row.selection]),
  ]);
  const { figures } = await cachedByContentVersion(ctx.db, key, () =>
    matchFigures(
      ctx.db,
      rows.map((row) => selectionFilter(selectionOf(row), scope)),
      scope,
    ),
  );
  return rows.map((row, index) => {
    const item = toSmartCollection(row);
    const figure = figures[index];
    return extend(item, {
      threadCount: figure?.count ?? 0,
      recentActivityAt: figure?.recentActivityAt ?? item.updatedAt,
    });
  });
}
