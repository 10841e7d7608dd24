import type { Caller } from "../caller.js";
import type { EngineContext } from "../deps.js";
import { listRoots, type RootPage } from "../threads/list-roots.js";
import { selectionFilter, threadSortOf } from "./selection.js";
import type { SmartCollectionSortOrder } from "./smart-collection-schemas.js";
import type { SmartCollectionRow } from "./smart-collection-view.js";
import { selectionOf } from "./smart-collection-view.js";

/**
 * One page of the roots a smart collection gathers, in its `sortOrder`, for the caller: the
 * Thread list's filter and keyset orders (`newest` walks `published`, `oldest` `oldest`,
 * `rating_desc` `rating`), so cursors follow the Thread lists' rules.
 * @see docs/smart-collections.md § Reading the Threads
 */
export function pageOfSmartCollection(
  ctx: Pick<EngineContext, "db" | "settings">,
  row: SmartCollectionRow,
  scope: { caller: Caller; language?: string | undefined },
  page: { cursor?: string | undefined; limit: number },
): Promise<RootPage> {
  const filter = selectionFilter(selectionOf(row), { ...scope, timeZone: ctx.settings.timeZone });
  const sort = threadSortOf(row.sort_order as SmartCollectionSortOrder);
  return listRoots(ctx.db, { filter, sort }, page);
}
