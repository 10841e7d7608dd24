import { getPublicThread } from "./get-public-thread.js";
import { getThread } from "./get-thread.js";
import { listPublicThreadPosts } from "./list-public-thread-posts.js";
import { listPublicThreads } from "./list-public-threads.js";
import { listThreadPosts } from "./list-thread-posts.js";
import { listThreads } from "./list-threads.js";

/** The Thread operations of the owner's surface (`/api/threads`). */
export const threadOperations = {
  list: listThreads,
  get: getThread,
  listPosts: listThreadPosts,
};

/** The Thread operations of the public surface (`/api/public/threads`). */
export const publicThreadOperations = {
  list: listPublicThreads,
  get: getPublicThread,
  listPosts: listPublicThreadPosts,
};
