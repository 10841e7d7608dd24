import { checkSmartCollectionSlug } from "./check-slug.js";
import { createSmartCollection } from "./create-smart-collection.js";
import { deleteSmartCollection } from "./delete-smart-collection.js";
import { getSmartCollection } from "./get-smart-collection.js";
import { listPublicSmartCollectionThreads } from "./list-public-smart-collection-threads.js";
import { listSmartCollectionThreads } from "./list-smart-collection-threads.js";
import { listSmartCollections } from "./list-smart-collections.js";
import { previewSelection } from "./preview-selection.js";
import { updateSmartCollection } from "./update-smart-collection.js";

/** The smart collection operations: the owner's (`smartCollections.*`) and the reader's page. */
export const smartCollectionOperations = [
  listSmartCollections,
  getSmartCollection,
  createSmartCollection,
  updateSmartCollection,
  deleteSmartCollection,
  previewSelection,
  checkSmartCollectionSlug,
  listSmartCollectionThreads,
  listPublicSmartCollectionThreads,
] as const;

export type { Selection } from "./smart-collection-schemas.js";
export type { SmartCollection, SmartCollectionListItem } from "./smart-collection-view.js";
