import type { Caller } from "../caller.js";
import { type MediaKind, mediaKindBit, mediaKinds } from "../files/media-kinds.js";
import type { ThreadFilter, VisibilityFilter } from "../threads/thread-filter.js";
import type { ThreadSort } from "../threads/thread-schemas.js";
import { zonedYearBounds } from "../threads/zoned-year.js";
import type { Selection, SmartCollectionSortOrder } from "./smart-collection-schemas.js";

/**
 * A selection in its stored form: keys in one order, media kinds deduplicated in the canonical
 * order, so equal conditions are stored (and answered) alike.
 */
export function normalizeSelection(selection: Selection): Selection {
  const normalized: Selection = {};
  if (selection.collection !== undefined) normalized.collection = [...selection.collection];
  if (selection.format !== undefined) normalized.format = selection.format;
  if (selection.title !== undefined) normalized.title = selection.title;
  if (selection.year !== undefined) normalized.year = selection.year;
  if (selection.media !== undefined) {
    const { media } = selection;
    normalized.media = typeof media === "string" ? media : mediaKinds.filter((kind) => media.includes(kind));
  }
  if (selection.replies !== undefined) normalized.replies = selection.replies;
  if (selection.visibility !== undefined) normalized.visibility = selection.visibility;
  return normalized;
}

/** Who a selection is matched for, and the site's time zone (a `year` is a calendar year there). */
export interface SelectionScope {
  caller: Caller;
  timeZone: string;
  /** Only Threads in this language (the `lang` query). */
  language?: string | undefined;
}

/**
 * A selection as the Thread list's filter, so a smart collection matches exactly what the Thread
 * list would with the same conditions: published roots only; a private Thread only for a caller
 * who may read it (the owner); a `visibility` condition (featured included) never matches a
 * private one.
 * @see spec § Smart collection (selection), docs/smart-collections.md § Selection
 */
export function selectionFilter(selection: Selection, scope: SelectionScope): ThreadFilter {
  const readable: VisibilityFilter =
    scope.caller.role === "public" ? { kind: "notPrivate" } : { kind: "all" };
  const visibility: VisibilityFilter =
    selection.visibility === "public" || selection.visibility === "latest_hidden"
      ? { kind: "one", value: selection.visibility }
      : selection.visibility === "featured"
        ? { kind: "notPrivate" }
        : readable;
  return {
    status: "published",
    visibility,
    featured: selection.visibility === "featured",
    format: selection.format,
    published: selection.year === undefined ? undefined : zonedYearBounds(selection.year, scope.timeZone),
    title: selection.title === undefined ? undefined : selection.title ? "any" : "none",
    replies: selection.replies === undefined ? undefined : selection.replies ? "any" : "none",
    language: scope.language,
    media: mediaFilterOf(selection.media),
    collectionIds: selection.collection,
  };
}

function mediaFilterOf(media: Selection["media"]): ThreadFilter["media"] {
  if (media === undefined) return undefined;
  if (media === "any" || media === "none") return { kind: media };
  return { kind: "kinds", mask: media.reduce((mask, kind) => mask | mediaKindBit(kind as MediaKind), 0) };
}

/** The Thread list order a smart collection's `sortOrder` walks (no pin lift: nothing is pinned in one). */
export function threadSortOf(sortOrder: SmartCollectionSortOrder): ThreadSort {
  switch (sortOrder) {
    case "newest":
      return "published";
    case "oldest":
      return "oldest";
    case "rating_desc":
      return "rating";
  }
}
