import { addThread } from "./add-thread.js";
import { checkCollectionSlugOperation } from "./check-slug.js";
import { createCollection } from "./create-collection.js";
import { deleteCollection } from "./delete-collection.js";
import {
  createDirectoryItem,
  deleteDirectoryItem,
  moveDirectoryItem,
  updateDirectoryItem,
} from "./directory-items.js";
import { getCollection } from "./get-collection.js";
import { listCollections } from "./list-collections.js";
import { pinThread, unpinThread } from "./pin-thread.js";
import { removeThread } from "./remove-thread.js";
import { updateCollection } from "./update-collection.js";

/** The collection and directory operations. @see spec § Collections */
export const collectionOperations = [
  listCollections,
  getCollection,
  checkCollectionSlugOperation,
  createCollection,
  updateCollection,
  deleteCollection,
  addThread,
  removeThread,
  pinThread,
  unpinThread,
  createDirectoryItem,
  updateDirectoryItem,
  moveDirectoryItem,
  deleteDirectoryItem,
] as const;
